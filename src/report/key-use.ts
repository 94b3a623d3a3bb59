/** The key mode in words, the same in every format (report evidence, console header, HTML, Markdown, JUnit, EARL). */
import type { KeyUse } from './types.js';

/** "key: shared (…)" or "key: dedicated (…)", with what other clients were seen to spend. Older reports have no keyUse: shared. */
export function keyUseLine(keyUse: KeyUse | undefined): string {
  const mode = keyUse?.mode ?? 'shared';
  const meaning =
    mode === 'dedicated'
      ? 'dedicated (--dedicated-key): nobody else uses it, so every unit the rate-limit headers count must be the run\'s own'
      : 'may be shared (the default): consumption the run did not cause is recorded, never held against the server';
  return `Key ${meaning}${keyUse?.otherClients === undefined ? '' : `; observed: ${keyUse.otherClients}`}`;
}
