/** The key mode in words, the same in every format (report evidence, console header, HTML, Markdown, JUnit, EARL). */
import type { KeyUse } from './types.js';

/** "Key may be shared (…)" or "Key dedicated (…)", with what other clients were seen to spend. Reports made before key modes have no keyUse and no line. */
export function keyUseLine(keyUse: KeyUse): string {
  const mode = keyUse.mode;
  const meaning =
    mode === 'dedicated'
      ? 'dedicated (--dedicated-key): nobody else uses it, so every unit the rate-limit headers count must be the run\'s own'
      : 'may be shared (the default): consumption the run did not cause is recorded, never held against the server';
  return `Key ${meaning}${keyUse.otherConsumption === undefined ? '' : `; observed: ${keyUse.otherConsumption}`}`;
}
