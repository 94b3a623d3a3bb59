/**
 * Which proxy the run's requests go through, decided once per run (the client talks to one
 * origin) the way Node's ecosystem reads the proxy variables (undici's EnvHttpProxyAgent, npm,
 * Go, Python), so a CI runner set up for any of them needs nothing more:
 *
 * - an explicit proxy (`--proxy`, the library's `proxy`) wins; an empty one means none, whatever
 *   the environment says;
 * - else the environment: for an https target `https_proxy`, then `HTTPS_PROXY`; for an http
 *   target `http_proxy`, then `HTTP_PROXY`, except while `REQUEST_METHOD` is set (set at all,
 *   even empty, as Python reads it): inside a CGI request a server fills `HTTP_PROXY` from the
 *   request's `Proxy:` header ("httpoxy"), so Go and Python ignore it there, and so does the run;
 *   then `all_proxy`, `ALL_PROXY` (curl's, kept as the last fallback: a runner set up for curl
 *   may name its proxy there alone). The lower-case form wins where both are set, as curl and
 *   undici read them, and an empty variable counts as unset. A target never takes the other
 *   scheme's variable (undici would take HTTP_PROXY for an https target; curl, Go, Python and
 *   npm do not): that variable is named as ignored, so the user can be told;
 * - else the caller's fallback (the config file's `proxy`: flags, then environment, then file);
 * - then `no_proxy` (or `NO_PROXY`) may still send the target direct, an explicit proxy's too, as
 *   curl does since 7.53: `*` alone matches every host; otherwise a list separated by commas or
 *   blanks of host names (matching the name and every subdomain, a leading or trailing dot
 *   ignored), IP addresses with an optional /bits (CIDR), IPv6 with or without brackets; an entry
 *   with a port (`host:8443`, `[::1]:8443`) matches that port only, which curl would never match.
 *
 * A proxy URL without a scheme is http://; without a port it is 1080 for http:// and 443 for
 * https://, as curl's. Its credentials (user:password@) are secrets: they become `authorization`
 * (and `secrets`, for the redactor) and nothing else; `url` and every message go without them.
 */
import { BlockList, isIP } from 'node:net';
import type { ProxyUse } from './exchange.js';

/** Where a proxy came from: an environment variable, or an option named as the user knows it (`--proxy`, `the config file`). */
export type ProxySource = { variable: string } | { option: string };

export interface ProxyRoute {
  /** scheme://host:port, without credentials: what the transport connects to and every message shows. */
  url: string;
  host: string;
  port: number;
  secure: boolean;
  /** The Proxy-Authorization value its credentials make (Basic), when it has any: a secret, like the key. */
  authorization?: string;
  /** The secrets to redact from anything recorded: the password, and user:password as sent. */
  secrets: string[];
  source: ProxySource;
}

/** What a run does about proxies, for the transport and for the curl lines that reproduce its requests. */
export interface ProxyChoice {
  route?: ProxyRoute;
  /**
   * The environment named a proxy for this target and the run did not use it because it was
   * disabled (`--proxy ''`): a curl line must then say `--noproxy '*'` to go direct too.
   */
  environmentDisabled?: boolean;
  /** The no_proxy/NO_PROXY variable that sent the target direct, when one did. */
  bypassedBy?: string;
  /** A proxy variable that is set, that a user may expect to be used, and that the run does not use for this target. */
  ignored?: IgnoredVariable;
}

/**
 * Why: `cgi`, HTTP_PROXY while REQUEST_METHOD is set (httpoxy); `scheme`, http_proxy or
 * HTTP_PROXY for an https target that no https or all proxy variable covers, which goes direct.
 */
export interface IgnoredVariable {
  variable: string;
  because: 'cgi' | 'scheme';
}

/** The user's mistake: exit 2 with its one line, wherever it is caught. */
export class ProxyConfigError extends Error {
  override name = 'ProxyConfigError';
  readonly exitCode = 2;
}

export type Environment = Readonly<Record<string, string | undefined>>;

function variable(env: Environment, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/** The first set variable of `names`, and its name. */
function firstSet(env: Environment, names: readonly string[]): { name: string; value: string } | undefined {
  for (const name of names) {
    const value = variable(env, name);
    if (value !== undefined) return { name, value };
  }
  return undefined;
}

/** Inside a CGI request (httpoxy): set at all, an empty value too, as Python reads it. */
function inCgiRequest(env: Environment): boolean {
  return env['REQUEST_METHOD'] !== undefined;
}

/** The environment's proxy variables for a target of this scheme, in the order they are read. */
function proxyVariables(secure: boolean, env: Environment): string[] {
  const schemeVariables = secure ? ['https_proxy', 'HTTPS_PROXY'] : ['http_proxy', ...(inCgiRequest(env) ? [] : ['HTTP_PROXY'])];
  return [...schemeVariables, 'all_proxy', 'ALL_PROXY'];
}

/** The environment variable the run takes the proxy of this target from, when one is set. */
export function environmentProxy(targetUrl: string, env: Environment): { name: string; value: string } | undefined {
  return firstSet(env, proxyVariables(new URL(targetUrl).protocol === 'https:', env));
}

/** A variable set for this target's scheme, or for the other one, that the environment's choice passed over (see IgnoredVariable). */
function ignoredVariable(secure: boolean, env: Environment, fromEnv: { name: string } | undefined): IgnoredVariable | undefined {
  if (!secure) {
    const passedOver = inCgiRequest(env) && variable(env, 'http_proxy') === undefined && variable(env, 'HTTP_PROXY') !== undefined;
    return passedOver ? { variable: 'HTTP_PROXY', because: 'cgi' } : undefined;
  }
  if (fromEnv !== undefined) return undefined;
  const other = firstSet(env, ['http_proxy', 'HTTP_PROXY']);
  return other === undefined ? undefined : { variable: other.name, because: 'scheme' };
}

const EXPLICIT_PORT = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?#]*@)?(?:\[[^\]]*\]|[^:/?#]*):(\d+)/i;

/** A proxy URL as curl reads it; `from` names where it came from, in messages (which never quote the URL: it may hold a password). */
export function parseProxyUrl(raw: string, source: ProxySource): ProxyRoute {
  const from = 'variable' in source ? source.variable : source.option;
  const text = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ProxyConfigError(`the proxy URL in ${from} is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ProxyConfigError(`the proxy in ${from} uses ${url.protocol.slice(0, -1)}://, which is not supported: use an http:// or https:// proxy`);
  }
  if (url.hostname === '') throw new ProxyConfigError(`the proxy URL in ${from} has no host`);
  const secure = url.protocol === 'https:';
  const explicitPort = EXPLICIT_PORT.exec(text)?.[1];
  const port = explicitPort === undefined ? (secure ? 443 : 1080) : Number(explicitPort);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new ProxyConfigError(`the proxy URL in ${from} has no valid port`);
  const user = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  const credentials = `${user}:${password}`;
  return {
    url: `${url.protocol}//${url.hostname}:${port}`,
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port,
    secure,
    ...(url.username === '' ? {} : { authorization: `Basic ${Buffer.from(credentials).toString('base64')}` }),
    secrets: url.username === '' ? [] : [...(password === '' ? [] : [password, url.password]), credentials],
    source,
  };
}

interface Target {
  host: string;
  port: number;
  family: 0 | 4 | 6;
}

function targetOf(targetUrl: string): Target {
  const url = new URL(targetUrl);
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  const family = isIP(host);
  return { host, port, family: family === 4 || family === 6 ? family : 0 };
}

/** An entry's host and port, when it names one: "host:8443", "[::1]:8443"; a bare IPv6 address has none. */
function splitPort(entry: string): { host: string; port?: number } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed !== null) return { host: bracketed[1] ?? '', ...(bracketed[2] === undefined ? {} : { port: Number(bracketed[2]) }) };
  const withPort = /^([^:]+):(\d+)$/.exec(entry);
  if (withPort !== null) return { host: withPort[1] ?? '', port: Number(withPort[2]) };
  return { host: entry };
}

function addressMatches(target: Target, entry: string): boolean {
  const [network = '', bitsText] = entry.split('/');
  const family = isIP(network);
  if (family !== target.family) return false;
  const type = family === 6 ? 'ipv6' : 'ipv4';
  const list = new BlockList();
  const bits = bitsText === undefined ? undefined : Number(bitsText);
  if (bits === undefined || !/^\d+$/.test(bitsText ?? '')) {
    if (bitsText !== undefined) return false;
    list.addAddress(network, type);
  } else {
    if (bits > (family === 6 ? 128 : 32)) return false;
    list.addSubnet(network, bits, type);
  }
  return list.check(target.host, type);
}

function nameMatches(target: Target, entry: string): boolean {
  const name = entry.replace(/\.$/, '').replace(/^\./, '').toLowerCase();
  if (name === '') return false;
  return target.host === name || target.host.endsWith(`.${name}`);
}

/** Whether a no_proxy list sends this target direct (curl's rules; entries with a port are ours, see above). */
export function noProxyMatches(targetUrl: string, list: string): boolean {
  if (list.trim() === '*') return true;
  const target = targetOf(targetUrl);
  for (const raw of list.split(/[\s,]+/)) {
    if (raw === '') continue;
    const { host, port } = splitPort(raw);
    if (port !== undefined && port !== target.port) continue;
    if (target.family === 0 ? nameMatches(target, host) : addressMatches(target, host)) return true;
  }
  return false;
}

export interface ProxyInputs {
  /** The explicit proxy (`--proxy`); '' disables every proxy, the environment's included. */
  explicit?: string | undefined;
  /** Used when neither the option nor the environment names one (the config file's `proxy`). */
  fallback?: string | undefined;
  /** How messages name the two: by default `--proxy` and `the config file`. */
  labels?: { explicit?: string; fallback?: string };
  env: Environment;
}

/** The run's proxy for a target; throws ProxyConfigError on a proxy URL that cannot be used. */
export function chooseProxy(targetUrl: string, inputs: ProxyInputs): ProxyChoice {
  const secure = new URL(targetUrl).protocol === 'https:';
  const fromEnv = environmentProxy(targetUrl, inputs.env);
  if (inputs.explicit !== undefined && inputs.explicit.trim() === '') return fromEnv === undefined ? {} : { environmentDisabled: true };
  // Only when the environment decides: beside an explicit proxy, no variable was going to be used.
  const passedOver = inputs.explicit === undefined ? ignoredVariable(secure, inputs.env, fromEnv) : undefined;
  const ignored = passedOver === undefined ? {} : { ignored: passedOver };
  // Through another proxy (all_proxy, the config file's), the other scheme's variable is no surprise; HTTP_PROXY in a CGI request still is.
  const ignoredOnRoute = passedOver?.because === 'cgi' ? ignored : {};
  const chosen =
    inputs.explicit !== undefined
      ? { raw: inputs.explicit.trim(), source: { option: inputs.labels?.explicit ?? '--proxy' } }
      : fromEnv !== undefined
        ? { raw: fromEnv.value, source: { variable: fromEnv.name } }
        : inputs.fallback !== undefined && inputs.fallback.trim() !== ''
          ? { raw: inputs.fallback.trim(), source: { option: inputs.labels?.fallback ?? 'the config file' } }
          : undefined;
  const noProxy = firstSet(inputs.env, ['no_proxy', 'NO_PROXY']);
  const bypassedBy = noProxy !== undefined && noProxyMatches(targetUrl, noProxy.value) ? noProxy.name : undefined;
  // Where NO_PROXY sends the target direct whatever variable is read, nothing is said of one passed over.
  if (chosen === undefined) return bypassedBy === undefined ? ignored : {};
  const route = parseProxyUrl(chosen.raw, chosen.source);
  if (bypassedBy !== undefined) return { bypassedBy };
  return { route, ...ignoredOnRoute };
}

/** How a proxy is named to the user: its URL without credentials, and where it came from. */
export function describeProxy(route: ProxyRoute): string {
  const from = 'variable' in route.source ? route.source.variable : route.source.option;
  return `${route.url} (${from}${route.authorization === undefined ? '' : ', with credentials'})`;
}

/** What a curl line must say to take the same route (see ProxyUse); undefined: plain curl does. */
export function proxyUseOf(choice: ProxyChoice): ProxyUse | undefined {
  const { route } = choice;
  if (route === undefined) return choice.environmentDisabled === true ? { direct: true } : undefined;
  return 'variable' in route.source ? { variable: route.source.variable } : { url: route.url, credentials: route.authorization !== undefined };
}
