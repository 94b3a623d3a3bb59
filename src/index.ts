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
export { renderHtml } from './report/render/html.js';
export { renderJunit } from './report/render/junit.js';
export { renderMarkdown } from './report/render/markdown.js';
export { writeReports } from './report/write.js';
export { loadReport, reportErrors, ReportFileError } from './report/load.js';
export { loadCatalog, type Catalog, type Requirement } from './catalog.js';
