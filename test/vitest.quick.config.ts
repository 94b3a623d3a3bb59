import { readdirSync, readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';
import full from './vitest.config.js';
import { weightOf } from './support/heavy-first-sequencer.js';
import './support/variant-sample.js';

/**
 * `npm run test:quick`, the inner loop: every test file that runs no whole conformance run (the
 * units, chosen by support/heavy-first-sequencer.ts's weightOf, so a new unit file is in), plus
 * the variants table on a deliberate sample: one conforming variant and a mutant from each of five
 * areas, each judged the same under a busy machine. `npm test` runs everything.
 */
const QUICK_SAMPLE: Record<string, string> = {
  'retry-after-http-date': 'conforming, and differs where the spec leaves room: the whole run, section 8 included, must pass',
  'default-page-10': 'a listing mutant (LIST-002)',
  'rejected-but-stored': 'a createPet mutant judged through the store (CREATE-004)',
  'wrong-key-403': 'an authentication mutant (AUTH-002)',
  'error-without-code': 'an error-body mutant seen on every error response (ERR-001)',
  'reset-in-milliseconds': 'a rate-limit mutant judged on every response\'s headers (RATE-003)',
};

const dir = new URL('.', import.meta.url);
const units = readdirSync(dir)
  .filter((name) => name.endsWith('.test.ts') && weightOf(readFileSync(new URL(name, dir), 'utf8')) === 0)
  .map((name) => `test/${name}`);

// Spread, not mergeConfig: that would add these files to the full config's include.
export default defineConfig({
  ...full,
  test: { ...full.test, include: [...units, 'test/variants*.test.ts'], provide: { variantSample: Object.keys(QUICK_SAMPLE) } },
});
