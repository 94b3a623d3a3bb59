/**
 * What the run's first line says of the route to the target and of where its options came from,
 * so a user behind a proxy sees at once whether it is used: "through proxy http://proxy:3128
 * (HTTPS_PROXY)", "direct (NO_PROXY)", never a credential or a header value. A variable set and
 * not used (HTTP_PROXY in a CGI request, http_proxy for an https target) gets a warning of its own.
 */
import type { RunOptions } from './args.js';
import { chooseProxy, describeProxy, type IgnoredVariable } from '../http/proxy-route.js';

/** Where the embedded server is served: only the explicit proxy applies to it (see api/options.ts). */
const EMBEDDED = 'http://127.0.0.1';

export interface ReachNote {
  /** "; through proxy ..." etc., to append to the first line; empty when there is nothing to say. */
  suffix: string;
  warnings: string[];
}

export function reachNote(command: Pick<RunOptions, 'baseUrl' | 'proxy' | 'headers' | 'clientCertFile' | 'configFile'>, env: NodeJS.ProcessEnv): ReachNote {
  const choice = chooseProxy(command.baseUrl ?? EMBEDDED, {
    explicit: command.proxy?.value,
    labels: { explicit: command.proxy?.from ?? '--proxy' },
    env: command.baseUrl === undefined ? {} : env,
  });
  const parts = [
    ...(choice.route !== undefined ? [`through proxy ${describeProxy(choice.route)}`] : []),
    ...(choice.bypassedBy !== undefined ? [`direct (${choice.bypassedBy})`] : []),
    ...(choice.environmentDisabled === true ? ['direct (--proxy \'\')'] : []),
    ...(command.headers.length === 0 ? [] : [`gateway headers ${command.headers.map((h) => h.name).join(', ')}`]),
    ...(command.clientCertFile === undefined ? [] : ['client certificate']),
    ...(command.configFile === undefined ? [] : [`options from ${command.configFile}`]),
  ];
  const warnings = choice.ignored === undefined ? [] : [`warning: ${ignoredWarning(choice.ignored)}`];
  return { suffix: parts.map((p) => `; ${p}`).join(''), warnings };
}

/** Why a proxy variable the user set is not used, and what to set instead. */
function ignoredWarning({ variable, because }: IgnoredVariable): string {
  return because === 'cgi'
    ? `${variable} is ignored while REQUEST_METHOD is set (in a CGI request it may come from a client's Proxy: header, "httpoxy"); set http_proxy (lower case) to use a proxy`
    : `${variable} names a proxy for http targets only: this https target is reached direct; set HTTPS_PROXY (or https_proxy) to go through a proxy`;
}
