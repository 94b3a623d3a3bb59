/**
 * From the parsed command line to the library's options: the CLI's only extras are reading the
 * files it names (--ca, --client-cert, --client-key), whose failure is the user's (exit 2, one
 * line), and the client key's passphrase, which comes from the environment only.
 */
import { readFile } from 'node:fs/promises';
import type { ConformanceOptions } from '../api/options.js';
import { clientIdentity, ClientIdentityError } from '../api/client-identity.js';
import { UsageError, type RunOptions } from './args.js';
import { PASSPHRASE_VARIABLE } from '../options/table.js';

/** The one place the client key's passphrase comes from: never a flag or the config file, which show up in logs and repositories. */
export { PASSPHRASE_VARIABLE };

const CLI_NAMES = { cert: '--client-cert', key: '--client-key', passphrase: PASSPHRASE_VARIABLE };

async function readPem(flag: string, file: string | undefined): Promise<string | undefined> {
  if (file === undefined) return undefined;
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${flag} file "${file}": ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
}

/** The client certificate options, checked here so that a mistake is worded with the CLI's names. */
async function clientCertificate(command: Omit<RunOptions, 'command'>, env: NodeJS.ProcessEnv): Promise<Pick<ConformanceOptions, 'clientCert' | 'clientKey' | 'clientKeyPassphrase'>> {
  const cert = await readPem('--client-cert', command.clientCertFile);
  const key = await readPem('--client-key', command.clientKeyFile);
  const passphrase = env[PASSPHRASE_VARIABLE];
  try {
    clientIdentity({ cert, key, passphrase }, CLI_NAMES);
  } catch (error) {
    if (error instanceof ClientIdentityError) throw new UsageError(error.message);
    throw error;
  }
  return {
    ...(cert === undefined ? {} : { clientCert: cert }),
    ...(key === undefined ? {} : { clientKey: key }),
    ...(passphrase === undefined || passphrase === '' ? {} : { clientKeyPassphrase: passphrase }),
  };
}

export async function libraryOptions(
  command: Omit<RunOptions, 'command'>,
  extra: Pick<ConformanceOptions, 'progress' | 'replay' | 'env' | 'signal'> = {},
): Promise<ConformanceOptions> {
  const ca = await readPem('--ca', command.caFile);
  const env = extra.env ?? process.env;
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
    // Only when said: the CLI has no way to declare a key shared, and the library refuses riskBreakingStore beside dedicatedKey: false.
    ...(command.dedicatedKey ? { dedicatedKey: true } : {}),
    ...(command.riskBreakingStore ? { riskBreakingStore: true } : {}),
    ...(command.proxy === undefined ? {} : { proxy: command.proxy.value, proxySource: command.proxy.from }),
    ...(command.headers.length === 0 ? {} : { headers: command.headers.map((h) => [h.name, h.value] as const) }),
    ...(await clientCertificate(command, env)),
    ...extra,
    env,
  };
}
