/**
 * Reads a saved report.json back, validated against schemas/report.schema.json, so `report`
 * and `replay` never render or act on something that is not a report of ours.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { compileValidator } from '../interface/validators.js';
import type { JsonSchema } from '../interface/openapi.js';
import { packagePath } from '../interface/package-root.js';
import type { Report } from './types.js';

let validator: ((data: unknown) => string[]) | undefined;

/** Errors of a value against the report schema; empty when it is a valid report. */
export function reportErrors(value: unknown): string[] {
  validator ??= compileValidator(JSON.parse(readFileSync(packagePath('schemas', 'report.schema.json'), 'utf8')) as JsonSchema);
  return validator(value);
}

export class ReportFileError extends Error {
  readonly exitCode = 2;
}

export async function loadReport(file: string): Promise<Report> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ReportFileError(`cannot read "${file}": ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  return parseReport(text, file);
}

/** A report from the text of report.json, validated; `file` names it in the error. */
export function parseReport(text: string, file: string): Report {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ReportFileError(`"${file}" is not JSON`);
  }
  if (typeof value === 'object' && value !== null && 'schemaVersion' in value && value.schemaVersion === 1) {
    throw new ReportFileError(`"${file}" is a report of schema version 1 (verdicts pass/fail/skipped), written by an earlier version: run again to get version 2`);
  }
  const errors = reportErrors(value);
  if (errors.length > 0) throw new ReportFileError(`"${file}" is not a petstore-conformance report: ${errors[0]}`);
  return value as Report;
}
