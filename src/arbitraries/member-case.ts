/**
 * JSON member names in another letter case. RFC 8259 member names are strings, compared exactly:
 * `NAME` is not `name`. Stacks that match them to fields ignoring case (Go's encoding/json,
 * Newtonsoft.Json, ASP.NET Core's defaults) read such members as the field, so the createPet
 * bodies that tell these stacks apart are built from the renamings here.
 */
import type { JsonObject } from '../interface/json.js';

export type LetterCase = 'upper' | 'capitalised' | 'flipped';

/** `name` in another case: NAME, Name, or nAME (each letter's case flipped). */
export function inCase(member: string, letterCase: LetterCase): string {
  switch (letterCase) {
    case 'upper':
      return member.toUpperCase();
    case 'capitalised':
      return member.charAt(0).toUpperCase() + member.slice(1);
    case 'flipped':
      return [...member].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');
  }
}

/** The object with each of `fields` renamed to another case, members kept in their order. */
export function withFieldsInCase(object: JsonObject, fields: readonly string[], letterCase: LetterCase): JsonObject {
  return Object.fromEntries(Object.entries(object).map(([member, value]) => [fields.includes(member) ? inCase(member, letterCase) : member, value]));
}

/** Members of the object whose names equal `field` ignoring case but are not `field` itself. */
export function otherCaseMembers(object: JsonObject, field: string): string[] {
  return Object.keys(object).filter((member) => member !== field && member.toLowerCase() === field.toLowerCase());
}
