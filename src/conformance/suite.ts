/**
 * A suite: its tests are registered when the run's declared order reaches it
 * (suites/order.ts, registered by suites/all.conformance.ts), not as a side effect of importing
 * its module, so one suite may import another's helpers without changing when either runs.
 */
import { describe } from 'vitest';

export interface Suite {
  readonly title: string;
  /** Declares the suite's tests (vitest's describe); once per run. */
  register(): void;
}

export function suite(title: string, body: () => void): Suite {
  let registered = false;
  return {
    title,
    register(): void {
      if (registered) throw new Error(`suite '${title}' registered twice`);
      registered = true;
      describe(title, body);
    },
  };
}
