/**
 * From the parsed command line to the library's options: the CLI's only extra is reading the
 * --ca file, whose failure is the user's (exit 2, one line).
 */
import { readFile } from 'node:fs/promises';
import type { ConformanceOptions } from '../api/options.js';
import { UsageError, type RunOptions } from './args.js';

async function readCa(file: string | undefined): Promise<string | undefined> {
  if (file === undefined) return undefined;
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read --ca file "${file}": ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
}

export async function libraryOptions(command: Omit<RunOptions, 'command'>, extra: Pick<ConformanceOptions, 'progress' | 'replay' | 'signal'> = {}): Promise<ConformanceOptions> {
  const ca = await readCa(command.caFile);
  return {
    ...(command.baseUrl === undefined ? {} : { baseUrl: command.baseUrl }),
    ...(command.apiKey === undefined ? {} : { apiKey: command.apiKey }),
    ...(command.plan === undefined ? {} : { plan: command.plan }),
    only: command.only,
    readOnly: command.readOnly,
    maxRequests: command.maxRequests,
    seed: command.seed,
    ...(command.deadlineMs === undefined ? {} : { deadlineMs: command.deadlineMs }),
    timeoutMs: command.timeoutMs,
    maxWaitMs: command.maxWaitMs,
    ...(ca === undefined ? {} : { ca }),
    exhaustDailyQuota: command.exhaustDailyQuota,
    // The HAR is rendered from the report, which keeps the exchange log only when asked.
    ...(command.reporters.includes('har') ? { exchangeLog: true } : {}),
    dedicatedKey: command.dedicatedKey,
    ...extra,
  };
}
