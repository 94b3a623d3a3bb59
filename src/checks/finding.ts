/**
 * What a check says about an exchange. Checks are pure functions returning findings; they never
 * throw, assert or do I/O. A violation fails its requirement; an observation records what was
 * seen where the spec leaves room (it never changes a verdict).
 */
export type FindingKind = 'violation' | 'observation';

export interface Finding {
  requirement: string;
  kind: FindingKind;
  message: string;
  /** seq of the exchange the finding is about, when there is one. */
  exchange?: number;
}

export const violation = (requirement: string, message: string, exchange?: number): Finding => ({
  requirement,
  kind: 'violation',
  message,
  ...(exchange === undefined ? {} : { exchange }),
});

export const observation = (requirement: string, message: string, exchange?: number): Finding => ({
  requirement,
  kind: 'observation',
  message,
  ...(exchange === undefined ? {} : { exchange }),
});
