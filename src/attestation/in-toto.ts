/**
 * The in-toto Statement v1 a petstore-conformance attestation signs: its subject is report.json
 * (name and SHA-256), its predicate the facts of the run an auditor or a policy checks first
 * (target, tool and spec versions, seed, options, verdict, each requirement's status), copied
 * from the report so the predicate alone answers "what did this run conclude".
 * Shape: schemas/attestation.schema.json ($defs/statement, $defs/predicate).
 */
import type { Level, Report, RequirementStatus, Verdict } from '../report/types.js';

export const STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
/** The DSSE payloadType of an in-toto statement. */
export const IN_TOTO_PAYLOAD_TYPE = 'application/vnd.in-toto+json';
/**
 * This project's predicate type. Versioned: a change that removes or redefines a field gets a new
 * URI, so a verifier's policy never reads a field it does not know the meaning of.
 */
export const CONFORMANCE_PREDICATE_TYPE = 'https://petstore-conformance.dev/attestation/conformance/v1';

export interface ConformancePredicate {
  target: Report['target'];
  tool: Report['tool'];
  spec: Report['spec'];
  seed: number;
  runId: string;
  startedAt: string;
  options: Report['options'];
  verdict: Verdict;
  verdictLine: string;
  complete: boolean;
  /** report.json's `halted.reason`, when the run was halted. */
  halted?: string;
  requirements: Array<{ id: string; level: Level; status: RequirementStatus }>;
}

export interface InTotoSubject {
  name: string;
  digest: { sha256: string };
}

export interface ConformanceStatement {
  _type: typeof STATEMENT_TYPE;
  subject: InTotoSubject[];
  predicateType: typeof CONFORMANCE_PREDICATE_TYPE;
  predicate: ConformancePredicate;
}

export function predicateOf(report: Report): ConformancePredicate {
  return {
    target: report.target,
    tool: report.tool,
    spec: report.spec,
    seed: report.seed,
    runId: report.runId,
    startedAt: report.startedAt,
    options: report.options,
    verdict: report.verdict,
    verdictLine: report.verdictLine,
    complete: report.complete,
    ...(report.halted === undefined ? {} : { halted: report.halted.reason }),
    requirements: report.requirements.map((r) => ({ id: r.id, level: r.level, status: r.status })),
  };
}

export function statementOf(subject: InTotoSubject, predicate: ConformancePredicate): ConformanceStatement {
  return { _type: STATEMENT_TYPE, subject: [subject], predicateType: CONFORMANCE_PREDICATE_TYPE, predicate };
}
