/**
 * Near misses of the run's own key: wrong keys one edit away from it, which a server comparing
 * keys by prefix, case-insensitively or by a truncated length accepts. They are as secret as the
 * key (each gives all but one character of it away), so no record holds one: an exchange names
 * its near miss by kind (AuthTemplate 'near-miss'), curl lines and replay rebuild it from the key.
 */

export type NearMiss = 'appended' | 'last-removed' | 'case-flipped';

/** The character appended: a plain letter, which no normalisation of a token would strip. */
export const APPENDED = 'x';

/**
 * Keys shorter than this get no near misses: the key minus a character is redacted from every
 * record, and a short one would match ordinary text.
 */
export const MIN_NEAR_MISS_KEY_LENGTH = 8;

/** ASCII letters only, as `tr 'A-Za-z' 'a-zA-Z'` does, so curl lines reproduce it exactly. */
const flipCase = (key: string): string => key.replace(/[A-Za-z]/g, (c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()));

/** The near miss of `key` of that kind. */
export function nearMissOf(key: string, miss: NearMiss): string {
  switch (miss) {
    case 'appended':
      return `${key}${APPENDED}`;
    case 'last-removed':
      return [...key].slice(0, -1).join('');
    case 'case-flipped':
      return flipCase(key);
  }
}

/** The near misses a run sends with this key: all three, the case flip only when the key has letters. */
export function nearMissesOf(key: string): NearMiss[] {
  if ([...key].length < MIN_NEAR_MISS_KEY_LENGTH) return [];
  const misses: NearMiss[] = ['appended', 'last-removed'];
  if (/[A-Za-z]/.test(key)) misses.push('case-flipped');
  return misses;
}

/** How a record shows the token in place of the near miss itself. */
export function describeNearMiss(miss: NearMiss): string {
  switch (miss) {
    case 'appended':
      return `<the key with "${APPENDED}" appended>`;
    case 'last-removed':
      return '<the key with its last character removed>';
    case 'case-flipped':
      return "<the key with its letters' case flipped>";
  }
}
