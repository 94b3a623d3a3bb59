/**
 * How vitest runs (or lists) the conformance suites: one compiled file, one worker thread, no
 * isolation, so one client and one rate-limit account serve every suite.
 */
import type { CliOptions } from 'vitest/node';
import { packageRoot } from '../interface/package-root.js';

export function suiteOptions(extra: Pick<CliOptions, 'reporters' | 'provide'>): CliOptions {
  return {
    config: false,
    root: packageRoot(),
    // The suites run compiled, loaded by Node itself rather than transformed by Vite: a third
    // less wall time and memory for the same tests (see bench/).
    include: ['dist/suites/all.conformance.js'],
    server: { deps: { external: [/\/dist\//] } },
    fileParallelism: false,
    isolate: false,
    watch: false,
    // One worker thread: one client, one rate-limit account; threads cost less memory than forks.
    pool: 'threads',
    ...extra,
  };
}

export const VITE_OPTIONS = { logLevel: 'silent', cacheDir: undefined } as const;
