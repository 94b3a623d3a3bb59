/**
 * report.json: the machine contract of a run. Every other format (terminal, JUnit, Markdown,
 * HTML, EARL) is rendered from this structure, so a saved report can be re-rendered later.
 * Its JSON Schema is schemas/report.schema.json; our tests validate our own output against it.
 */
import type { HaltReason } from '../http/errors.js';

/**
 * 'inconclusive': tried and could not tell. 'not-exercised': left out by the user's choice (--only,
 * --read-only, no --plan, an opt-in flag not given); it never blocks the word "conforms".
 */
export type RequirementStatus = 'pass' | 'fail' | 'inconclusive' | 'not-exercised';
/** 'does-not-conform': a must-requirement failed; 'not-verified': none did, but something meant to run could not be told, or the run broke. */
export type Verdict = 'conforms' | 'does-not-conform' | 'not-verified';
export type Level = 'must' | 'should';

import type { AuthMode, AuthTemplate } from '../http/exchange.js';
import type { Expectation } from '../checks/finding.js';
import type { Untestable } from '../spec-map.js';

export type { Expectation };

export interface ExchangeEvidence {
  seq: number;
  purpose: string;
  request: {
    method: string;
    url: string;
    headers: Record<string, string>;
    body?: string;
    /** The exact bytes of a body that was not UTF-8 (`body` then shows each ill-formed byte as \xHH), base64. */
    bodyBase64?: string;
    /** Path and query relative to the base URL, as sent: what `replay` re-sends. */
    target?: string;
    auth?: AuthMode;
    /** Where the run's key stood in the Authorization value (the key itself is never recorded). */
    authTemplate?: AuthTemplate;
    /** Set when `body` is an excerpt, so the request cannot be re-sent from it. */
    bodyTruncated?: true;
  };
  response?: {
    status: number;
    headers: Record<string, string>;
    /** At most EVIDENCE_BODY_CHARS characters, then "… (N more characters)". */
    body: string;
    /** SHA-256 (hex) of the whole body received (UTF-8, redacted), when `body` shows only its first part. */
    bodySha256?: string;
    truncated: boolean;
  };
  error?: { code: string; message: string };
  elapsedMs: number;
  /** Reproduces the request; the key appears only as $PETSTORE_API_KEY. */
  curl: string;
}

/**
 * One exchange of the run's full log (`Report.exchanges`, kept when asked for: `--reporter har`),
 * in send order, what exchanges.har is rendered from. Redacted like evidence; bodies keep their
 * first EVIDENCE_BODY_CHARS characters, `bodySize` says how long the whole body was.
 */
export interface LoggedExchange {
  seq: number;
  /** Requirement or probe that sent it ("LIST-003", "census", "preflight"). */
  purpose: string;
  /** Unix ms at which the request was sent. */
  sentAt: number;
  elapsedMs: number;
  /** seq of the 429 exchange this one retries. */
  retryOf?: number;
  request: {
    method: string;
    url: string;
    headers: Record<string, string>;
    /** At most EVIDENCE_BODY_CHARS characters of the body sent. */
    body?: string;
    /** Bytes of the whole body sent. */
    bodySize?: number;
    /** The exact bytes of a body that was not UTF-8, base64. */
    bodyBase64?: string;
  };
  response?: {
    status: number;
    headers: Record<string, string>;
    /** At most EVIDENCE_BODY_CHARS characters of the body received. */
    body: string;
    /** UTF-8 bytes of the whole body received (up to the client's cap). */
    bodySize: number;
    /** SHA-256 (hex) of the whole body received, when `body` is only its first part. */
    bodySha256?: string;
    /** The client stopped reading at its cap: the server sent more than bodySize. */
    truncated: boolean;
    /** ms from sending to the response's headers. */
    headersMs?: number;
  };
  error?: { code: string; message: string };
}

export interface Evidence {
  kind: 'violation' | 'observation' | 'exchange' | 'note';
  message: string;
  exchange?: ExchangeEvidence;
  /**
   * A violation's exchanges, by seq: the one it is about, the one it was compared with, and the
   * other responses that showed the same violation (at most MAX_CITED). Absent in older reports.
   */
  cites?: number[];
  /** seq of the earlier exchange a violation was compared with (also in `cites`; the evidence entry after it shows it). */
  pairedWith?: number;
  /** A violation only a sequence of responses shows (Finding.shownOnlyBy): what that sequence is. */
  shownOnlyBy?: string;
  /** What the check expected of the exchange, where a picture can show it (report.html's timeline). */
  expected?: Expectation;
}

export interface PropertyFailure {
  /** The shrunk smallest input that fails, as JSON text. */
  counterexample: string;
  seed: number;
  /** fast-check's replay path for that counterexample. */
  path: string;
  numRuns: number;
}

/**
 * One command of a model-based sequence as it can be sent again (`replay`): a createPet with its
 * NewPet (the name keeps the marker slot, which each sending fills with a marker of its own), a
 * getPet of the sequence's n-th created pet (from 0), or a listing of at most 100 pets, filtered by
 * status or not.
 */
export type SequenceCommand =
  | { op: 'createPet'; name: string; categoryId: string; status?: string }
  | { op: 'getPet'; pet: number }
  | { op: 'listPets'; status?: string };

/** One step of a failing sequence, as a person follows it: what was sent, what came back, what the model expected. */
export interface SequenceStep {
  /** From 1, in send order. */
  n: number;
  operation: string;
  /** The request, as method, target and body ("POST /pets {…}"). */
  sent: string;
  /** What came back, in short (status and the part of the body the model looked at). */
  received: string;
  /** What the model of this run's pets expected. */
  expected: string;
  /** The step that broke the sequence carries its violations; the steps before it were as expected. */
  violations?: string[];
  /** The exchanges of the step (a getPet waiting out read-after-write lag may send more than one). */
  exchanges: number[];
  /** One reproduction line per exchange; the key appears only as $PETSTORE_API_KEY. */
  curl: string[];
  /** The model once the step was judged: one line per pet the sequence created (absent in older reports). */
  model?: string[];
}

/** The shortest failing sequence of operations the model-based sequences found (src/conformance/sequence.ts). */
export interface SequenceFailure {
  /** Which sequence: "fixed sequence read-after-write" or "random sequence 3", and whether it was shrunk. */
  label: string;
  /** Seed of the random sequences (each run derives it from the run's seed). */
  seed: number;
  /** fast-check's path of a random counterexample; empty for a fixed sequence. */
  path: string;
  /** Sequences run, the failing one included. */
  sequencesRun: number;
  steps: SequenceStep[];
  /** The sequence as `replay` sends it again. */
  commands: SequenceCommand[];
}

/**
 * One request of the run as its timeline keeps it (Report.timeline): when the server handled it,
 * what it was and what the rate-limit headers said, nothing of its content (the evidence and the
 * exchange log have that), so a run of a day's quota stays small.
 */
export interface TimelineResponse {
  seq: number;
  /**
   * ms after RunTimeline.start at which the server handled it, on the server's clock as the run
   * placed it (src/checks/server-clock.ts: the earliest moment its Date and the freshest Dates
   * allow); a request that got no answer, when it was sent.
   */
  t: number;
  /** ms from sending to the answer (or the error). */
  ms: number;
  /** listPets, createPet, getPet or listOrders; "other" for a request outside the interface. */
  op: string;
  /** Absent when no response came. */
  status?: number;
  /** The transport error's code, when no response came. */
  error?: string;
  /** The credential it carried: 'key' is the run's key, every other a request without a valid key. */
  auth: AuthMode;
  /** X-RateLimit-Limit, -Remaining and -Reset (Unix seconds) as integers; each absent when the response lacked it or it was not an integer. */
  limit?: number;
  remaining?: number;
  reset?: number;
  /** A 429's Retry-After, as sent. */
  retryAfter?: string;
  /** seq of the 429 this request retried. */
  retryOf?: number;
  /** A read of a pet the run had created that did not find it yet, made again within CREATE-002's read-after-write grace. */
  lagged?: true;
}

/** A wait the run made before sending more: Retry-After, a window's end, a window top-up's hold, a read-after-write grace. */
export interface TimelineWait {
  /** ms after RunTimeline.start, on the same clock as the responses. */
  t: number;
  ms: number;
  /** Why, as the run announced it. */
  reason: string;
}

/** The run's requests against the rate limit, as the run placed them in time: what report.html's timeline draws. */
export interface RunTimeline {
  /** 'server': placed on the server's clock read from its Date headers; 'local': no Date header was usable, so on the local clock. */
  clock: 'server' | 'local';
  /** Unix ms, on that clock, of t = 0: the moment the first request was sent. */
  start: number;
  /** The server's clock minus the local one, in ms, as the run read it (0 on 'local'). */
  offsetMs: number;
  /** Every request of the run, in send order. */
  responses: TimelineResponse[];
  waits: TimelineWait[];
}

/** What a verdict rests on: the exchanges judged and, for a property, the cases it ran. */
export interface RestsOn {
  exchanges: number;
  cases?: number;
  detail?: string;
}

export interface RequirementResult {
  id: string;
  section: string;
  title: string;
  level: Level;
  status: RequirementStatus;
  /** Why a requirement is inconclusive or not exercised. */
  reason?: string;
  statement: string;
  interpretation?: string;
  /** Names of the tests that exercised it. */
  tests: string[];
  evidence: Evidence[];
  property?: PropertyFailure;
  /** The failing model-based sequence, when this requirement's failure came from one. */
  sequence?: SequenceFailure;
  /** What the verdict rests on, summed over the requirement's tests that reached one. */
  restsOn?: RestsOn;
}

export interface Observation {
  requirement: string;
  message: string;
  exchange?: number;
  /** Shown in the console summary too: something about the target a user should know, though no verdict changes (a Date header that lags). */
  notable?: boolean;
}

/** A sentence of the specification map (schemas/spec-map.yaml) with this run's verdicts of the requirements that check it. */
export interface SentenceCoverage {
  /** S<section>-NN, stable across versions of the map. */
  id: string;
  section: string;
  /** The sentence or table row, verbatim. */
  text: string;
  /** The requirements that check it, each with its status in this run; absent when no client-side test can. */
  requirements?: Array<{ id: string; status: RequirementStatus }>;
  /** What of the sentence its requirements leave out, or how they read it. */
  note?: string;
  /** Why no client-side test can check it. */
  untestable?: Untestable;
}

/** Whether other clients may use the key during the run (--dedicated-key says not), and what the headers showed they spent. */
export interface KeyUse {
  mode: 'shared' | 'dedicated';
  /**
   * Consumption X-RateLimit-Remaining showed that the run did not cause: "another client used at
   * least 28 of this window's 60 requests …" (shared), "the server counted at least 28 … beyond the
   * run's own" (dedicated). Absent when the headers showed none.
   */
  otherConsumption?: string;
}

/** How the target was reached, when not simply direct with the suite's own headers: names only, never a secret. */
export interface TargetAccess {
  /** The proxy every request was tunnelled through (CONNECT): its URL without credentials, where it came from, whether it had credentials. */
  proxy?: { url: string; from: string; credentials: boolean };
  /** The no_proxy variable that sent the target direct although a proxy was set. */
  noProxy?: string;
  /** Names of the gateway headers every request carried; their values are never recorded. */
  headers?: string[];
  /** The client certificate presented for mutual TLS. */
  clientCertificate?: { subject: string; fingerprint256: string };
}

/** The signals on which the CLI stops a run and keeps what it found (the library: the AbortSignal's reason). */
export type StopSignal = 'SIGINT' | 'SIGTERM' | 'SIGHUP';

/** What a replay report replays (`petstore-conformance replay`): absent from an ordinary run's report. */
export interface ReplayOf {
  /** Lowercase hex SHA-256 of the replayed report.json's bytes (digest.ts). */
  digest: string;
  /** The replayed file as given on the command line. */
  path: string;
  /** The failing requirements of that report that were replayed; every other one is "not replayed". */
  requirements: string[];
  /** Per replayed requirement, how many of the exchanges behind its failure were re-sent, and how many were left out. */
  findingsResent: Array<{ requirement: string; exchanges: number; leftOut: number }>;
  /** What the replay could not decide, and why (a "could not tell", or no single exchange that decides it). */
  cannotDecide: Array<{ requirement: string; reason: string }>;
  /** Every exchange the replay re-sent, rises' sequences included (replay.json lists them); absent from replay reports written before it was recorded. */
  exchangesResent?: number;
}

export interface Report {
  schemaVersion: 2;
  tool: { name: string; version: string };
  spec: { title: string; version: string };
  target: { baseUrl: string; embedded: boolean; keyFingerprint?: string; plan?: string; access?: TargetAccess };
  seed: number;
  runId: string;
  startedAt: string;
  durationMs: number;
  /** HTTP requests sent to the target. */
  requests: number;
  /**
   * The same requests split by credential: with the run's key (they draw on the key's rate limit)
   * and without it (no key, a wrong key, a malformed Authorization header: a server may count these
   * per address). Absent from reports written before it existed.
   */
  requestsByKey?: { withKey: number; withoutKey: number };
  /** Time spent waiting on the target's rate limit (pacing, Retry-After). */
  rateLimitWaitMs: number;
  options: { readOnly: boolean; maxRequests: number; timeoutMs: number; only: string[] };
  /** Absent in reports written before key modes: read as shared. */
  keyUse?: KeyUse;
  verdict: Verdict;
  /** The one-line verdict every format shows (src/report/verdict-line.ts). */
  verdictLine: string;
  /** True when every requirement meant to run got pass or fail (none inconclusive). */
  complete: boolean;
  summary: { pass: number; fail: number; inconclusive: number; notExercised: number; warnings: number };
  /** Requirements left out by the user's choice, and which choice. */
  notExercised: Array<{ id: string; reason: string }>;
  requirements: RequirementResult[];
  observations: Observation[];
  notTested: Array<{ section: string; statement: string; reason: string }>;
  /** Every sentence of the spec's sections 1 to 9 (the specification map); absent from reports written before it existed. */
  specCoverage?: SentenceCoverage[];
  /** Pets this run created on the target, so staging data can be found and cleaned. */
  createdPetIds: string[];
  /**
   * Present when the client stopped sending before the run's end: the target stopped answering
   * ('transport'), kept answering 429 ('throttled'), asked for a longer wait than --max-wait
   * ('wait-too-long'), --deadline passed ('deadline'), the caller aborted ('aborted'), a signal
   * stopped the process ('interrupted': SIGINT, SIGTERM or SIGHUP; exit code 128 + its number), or the
   * preflight found the user's mistake: the key answered 401 ('bad-key'), the base URL lacks /v1
   * ('wrong-base-url'), the target could not be reached at all ('unreachable'). Exit code 2 when
   * it left a must-requirement unjudged and none failed.
   */
  halted?: {
    reason: HaltReason | 'unreachable';
    message: string;
    /** With 'interrupted': the signal that stopped the run. */
    signal?: StopSignal;
    /** With 'interrupted' and 'aborted': when the stop came (ISO 8601). */
    at?: string;
    /** Requirements left inconclusive by failed or refused requests (their reasons say which). */
    unjudged: string[];
  };
  /** A failure of the run itself (not of the target's conformance), e.g. the run was halted. */
  runErrors: string[];
  /** Present when this report is a replay of a saved one: such a report is no run, and `diff` will not compare it with one. */
  replayOf?: ReplayOf;
  /** Every exchange of the run in send order, kept only when asked for (`--reporter har`, library option `exchangeLog`). */
  exchanges?: LoggedExchange[];
  /** The run's requests against the rate limit (report.html's timeline); absent from reports written before it existed, and from runs cancelled before their end. */
  timeline?: RunTimeline;
}
