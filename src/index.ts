/**
 * The package entry (`import … from 'petstore-conformance'`): run the conformance suite from
 * code, render and load reports. The CLI (src/cli/) is a face of these same functions.
 */
export { runConformance, keyFingerprint } from './api/run.js';
export { ConformanceUsageError, DEFAULTS, type ConformanceOptions } from './api/options.js';
export type { Plan, PlanName, PlanLimits } from './plans.js';
export type { ProgressListener } from '../reporters/compliance.js';
export type { ProgressEvent } from './conformance/progress.js';
export type { TestOutcome } from './report/build.js';
export type * from './report/types.js';
export { exitCodeOf } from './report/build.js';
export { RENDERERS, type FormatName, type Renderer } from './report/renderers.js';
export { renderEarl } from './report/render/earl.js';
export { renderHar } from './report/render/har.js';
export { renderHtml } from './report/render/html.js';
export { renderJunit } from './report/render/junit.js';
export { renderMarkdown } from './report/render/markdown.js';
export { writeReports } from './report/write.js';
export { loadReport, reportErrors, ReportFileError } from './report/load.js';
export { loadCatalog, type Catalog, type Requirement } from './catalog.js';
export { attestReport, conformanceStatement, verifyAttestation, type AttestReportInput, type ReportAttestation, type VerifyAttestationInput, type VerificationResult, type AttestationProblem } from './attestation/attest.js';
export { CONFORMANCE_PREDICATE_TYPE, IN_TOTO_PAYLOAD_TYPE, STATEMENT_TYPE, type ConformancePredicate, type ConformanceStatement, type InTotoSubject } from './attestation/in-toto.js';
export { pae, type DsseEnvelope, type DsseSignature } from './attestation/dsse.js';
export { AttestationInputError, keyIdOf, type KeyInput } from './attestation/keys.js';
export { sha256Hex, renderContextOfFile, type RenderContext } from './report/digest.js';
