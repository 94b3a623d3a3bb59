/**
 * What a conformance test tells the reporter, carried in vitest's task meta (serialisable, flat
 * at the top level because meta inherited from describe is not deep-merged). The key is never
 * put here: evidence is built from exchanges the client has already redacted.
 */
// Loads vitest's types before the augmentation below, whichever file the compiler meets first.
import type {} from 'vitest';
import type { HaltReason } from '../http/errors.js';
import type { Evidence, KeyUse, RestsOn, Observation, PropertyFailure, SequenceFailure } from '../report/types.js';

export interface ConformanceMeta {
  requirement?: string;
  /** Set when the test ends by skipping: 'inconclusive' = tried and could not tell; 'not-exercised' = the user's choice. */
  verdict?: 'inconclusive' | 'not-exercised';
  reason?: string;
  evidence?: Evidence[];
  observations?: Observation[];
  property?: PropertyFailure;
  /** The failing model-based sequence whose first violation was this requirement's. */
  sequence?: SequenceFailure;
  /** Requests the client had sent when the test ended (the reporter keeps the largest). */
  requestsSoFar?: number;
  /** Of those, the requests that carried the run's key (the rest: no key, a wrong or malformed one). */
  keyedRequestsSoFar?: number;
  /** Time the client had spent waiting on the rate limit when the test ended. */
  waitedMsSoFar?: number;
  /** Ids of pets created so far in the run, as exact decimal strings. */
  createdIds?: string[];
  /** Code of the client error (PC_TRANSPORT, PC_HALTED, PC_BUDGET) that left the test inconclusive. */
  stoppedBy?: string;
  /** RATE-002's account of the key: its mode and, when the headers showed it, what other clients spent. */
  keyUse?: KeyUse;
  /** What the test's own verdict rests on, set when it reached one (report.json's `restsOn`). */
  restsOn?: RestsOn;
  /** The client's halt, once it has stopped sending (same on every later test). */
  halt?: { reason: HaltReason; message: string };
}

declare module 'vitest' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface TaskMeta extends ConformanceMeta {}
}
