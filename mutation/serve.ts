/**
 * The server process of one mutant's run (`node dist/mutation/serve.js <test>`): the reference
 * server as the embedded run starts it (`embedded`), or a variant of the table (config.ts's VARIANT_TESTS). It runs in
 * a process of its own, not inside the CLI as the embedded server does, so that a mutant that
 * blocks the event loop or crashes the process is what it would be on any real server: a target
 * that stops answering, which the suite must judge by itself (a halt: NOT VERIFIED).
 *
 * Prints one JSON line (TargetLine) once listening. On SIGTERM it writes Stryker's coverage
 * counters to MUTATION_COVERAGE_FILE when that is set (the dry run), closes and exits.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { EMBEDDED_CUSTOM_QUOTA, EMBEDDED_WINDOW_SECONDS } from '../src/api/embedded-server.js';
import { EMBEDDED_TEST, VARIANT_TESTS } from './config.js';

/** What the runner needs to point the CLI at the server. */
export interface TargetLine {
  baseUrl: string;
  apiKey: string;
  /** CLI flags the test adds: --plan and the variant's own. */
  args: string[];
}

interface StrykerGlobal {
  __stryker__?: { mutantCoverage?: { static: Record<string, number>; perTest: Record<string, Record<string, number>> } };
}

/**
 * Idle connections are kept longer than Node's 5 s: on a busy machine the client may leave one
 * idle that long and then reuse it as the server closes it ("other side closed", a request
 * lost), which would turn the reference's CONFORMS into NOT VERIFIED. The transport of the
 * mutation runs, not a behaviour under test.
 */
const KEEP_ALIVE_SECONDS = 65;

async function start(test: string): Promise<{ target: TargetLine; close(): Promise<void> }> {
  // Imported only now: the instrumented modules read __STRYKER_ACTIVE_MUTANT__ as they load.
  const { pacedWindowLimiter, referenceBehaviour, startReferenceServer } = await import('../fixtures/reference-server/index.js');
  if (test === EMBEDDED_TEST) {
    // As src/api/run.ts starts it without --plan: a key of the custom quota, windows paced by the key.
    const key = `psk_custom_${randomBytes(12).toString('hex')}`;
    const server = await startReferenceServer({
      windowSeconds: EMBEDDED_WINDOW_SECONDS,
      limiter: pacedWindowLimiter,
      keepAliveSeconds: KEEP_ALIVE_SECONDS,
      keys: { [key]: 'free' },
      behaviour: { quota: (plan, ctx) => (ctx.auth?.key === key ? EMBEDDED_CUSTOM_QUOTA : referenceBehaviour.quota(plan, ctx)) },
    });
    return { target: { baseUrl: server.baseUrl, apiKey: key, args: [] }, close: () => server.close() };
  }
  const { VARIANTS, variantServerOptions } = await import('../fixtures/variants/index.js');
  const variant = VARIANT_TESTS.includes(test) ? VARIANTS.find((v) => v.name === test) : undefined;
  if (variant === undefined) throw new Error(`no variant test named ${test}`);
  // As the variants table runs it (test/support/variant-run.ts).
  const server = await startReferenceServer(variantServerOptions(variant, { keepAliveSeconds: KEEP_ALIVE_SECONDS }));
  const plan = variant.plan ?? 'free';
  const args = [...(variant.omitPlan === true ? [] : ['--plan', plan]), ...(variant.args ?? [])];
  return { target: { baseUrl: server.baseUrl, apiKey: server.keys[plan], args }, close: () => server.close() };
}

async function main(): Promise<void> {
  const test = process.argv[2] ?? EMBEDDED_TEST;
  const { target, close } = await start(test);
  process.stdout.write(`${JSON.stringify(target)}\n`);
  process.once('SIGTERM', () => {
    const file = process.env['MUTATION_COVERAGE_FILE'];
    if (file !== undefined) {
      const coverage = (globalThis as StrykerGlobal).__stryker__?.mutantCoverage;
      writeFileSync(file, JSON.stringify(coverage ?? { static: {}, perTest: {} }));
    }
    // Whatever a mutant did to close(), the process ends: the run is over.
    void close().finally(() => process.exit(0));
    setTimeout(() => process.exit(0), 2_000).unref();
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(3);
});
