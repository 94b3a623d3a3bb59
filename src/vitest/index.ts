/**
 * `petstore-conformance/vitest`: the conformance suite as tests of the implementer's own vitest
 * run. The whole run happens once (beforeAll), through the library, against the server their
 * globalSetup started; then each catalog requirement is one test that reads its verdict.
 */
import { beforeAll, describe, test } from 'vitest';
import { runConformance } from '../api/run.js';
import type { ConformanceOptions } from '../api/options.js';
import { loadCatalog } from '../catalog.js';
import { exitCodeOf } from '../report/build.js';
import type { Report } from '../report/types.js';
import { testVerdict } from './outcome.js';

export { testVerdict, violationText, type TestVerdict } from './outcome.js';

export interface SuiteSettings {
  /** Title of the describe block (default "Pet Store Service conformance"). */
  name?: string;
  /** Longest the whole run may take, in ms (default 10 minutes): the beforeAll's timeout. */
  runTimeoutMs?: number;
  /** Called with the report once the run is done, e.g. to save it. */
  onReport?: (report: Report) => void | Promise<void>;
}

const DEFAULT_RUN_TIMEOUT_MS = 10 * 60_000;

/**
 * Declares one test per catalog requirement, plus one saying whether the run could be made at
 * all (a rejected key, an unreachable server, a halt: otherwise every test would just skip).
 * `options` may be a function, called when the run starts, so values from `inject()` or the
 * environment are read as late as possible.
 */
export function defineConformanceSuite(options: ConformanceOptions | (() => ConformanceOptions), settings: SuiteSettings = {}): void {
  const catalog = loadCatalog();
  describe(settings.name ?? 'Pet Store Service conformance', () => {
    let report: Report | undefined;
    let runError: unknown;
    beforeAll(async () => {
      try {
        report = await runConformance(typeof options === 'function' ? options() : options);
        await settings.onReport?.(report);
      } catch (error) {
        // Failed once here, shown by every test below rather than as one hook error.
        runError = error;
      }
    }, settings.runTimeoutMs ?? DEFAULT_RUN_TIMEOUT_MS);

    test('the conformance run could be made', () => {
      if (runError !== undefined) throw runError;
      if (report === undefined) throw new Error('the conformance run produced no report');
      if (exitCodeOf(report) === 2) {
        const why = report.halted?.message ?? report.runErrors[0] ?? 'the run could not vouch for its verdicts';
        throw new Error(`the conformance run could not be completed: ${why}`);
      }
    });
    for (const requirement of catalog.requirements) {
      test(`${requirement.id} ${requirement.title}`, async (ctx) => {
        if (runError !== undefined) throw runError;
        const verdict = testVerdict(report?.requirements.find((r) => r.id === requirement.id));
        if (verdict.kind === 'fail') throw new Error(verdict.message);
        if (verdict.kind === 'warn') {
          console.warn(`warning (should): ${verdict.message}`);
          await ctx.annotate(verdict.message, 'warning');
        }
        if (verdict.kind === 'skip') ctx.skip(verdict.reason);
      });
    }
  });
}
