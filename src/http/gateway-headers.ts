/**
 * Headers an access gateway in front of the target asks for (a service token pair, a tenant or
 * routing header): sent on every request of the run, the unauthenticated probes too, and treated
 * as secrets. Their values never reach a record: the request's own header shows GATEWAY_VALUE,
 * and a value echoed anywhere else (a response header or body, an error) is redacted like the key,
 * once it is long enough to be told from ordinary text (SECRET_MIN_CHARS).
 *
 * Headers that would change what is tested, or that the transport owns, are refused with the
 * reason, before anything is sent.
 */

/** What a record shows in place of a gateway header's value (and of the value wherever it is echoed). */
export const GATEWAY_VALUE = '<gateway header value>';

/**
 * Values shorter than this are hidden in the request's own header only: searched for in every
 * response, "eu" or "1" would rewrite the bodies the checks judge, and so is no secret to keep.
 */
export const SECRET_MIN_CHARS = 8;

/** The user's mistake: exit 2 with its one line, wherever it is caught. */
export class GatewayHeaderError extends Error {
  override name = 'GatewayHeaderError';
  readonly exitCode = 2;
}

export interface GatewayHeader {
  name: string;
  value: string;
}

const WHAT_IS_TESTED = 'it would change what is tested';
const REFUSED: Readonly<Record<string, string>> = {
  authorization: `${WHAT_IS_TESTED}: the suite sends the API key in it, and no key or a wrong one on purpose`,
  'content-type': `${WHAT_IS_TESTED}: the suite chooses each body's media type, and sends wrong ones on purpose`,
  accept: `${WHAT_IS_TESTED}: the suite judges the media type the server answers with`,
  'content-length': `${WHAT_IS_TESTED}: it is the length of each body the suite sends`,
  host: `${WHAT_IS_TESTED}: it names the target, which the base URL gives`,
  'transfer-encoding': `${WHAT_IS_TESTED}: it frames each body the suite sends`,
  connection: 'it is hop-by-hop: the transport manages the connection',
  'keep-alive': 'it is hop-by-hop: the transport manages the connection',
  upgrade: 'it is hop-by-hop: the transport manages the connection',
  te: 'it is hop-by-hop: the transport manages the connection',
  trailer: 'it is hop-by-hop: the transport manages the connection',
  expect: 'it is hop-by-hop: the transport manages the connection',
  'proxy-authorization': "it is the proxy's: put the proxy's credentials in its URL (http://user:password@host:port)",
  'proxy-connection': "it is the proxy's: the transport manages the connection",
};

const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const SENDABLE_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * Why this header cannot be sent on the run's requests, or undefined when it can. `where` names
 * where it was given ("--header", "PETSTORE_HEADERS", "the config file"). The value is never quoted.
 */
export function gatewayHeaderProblem(header: GatewayHeader, where: string): string | undefined {
  const { name, value } = header;
  if (!HEADER_NAME.test(name)) return `${where}: ${JSON.stringify(name)} is not a valid header name`;
  const reason = REFUSED[name.toLowerCase()];
  if (reason !== undefined) return `${where}: ${name} cannot be set, because ${reason}`;
  if (value.trim() === '') return `${where}: ${name} has an empty value`;
  if (!SENDABLE_VALUE.test(value)) return `${where}: the value of ${name} has characters a header cannot carry (line breaks, control characters)`;
  return undefined;
}

/** "Name: value" as curl's -H takes it (spaces around the value trimmed); undefined when there is no colon. */
export function parseHeaderLine(line: string): GatewayHeader | undefined {
  const colon = line.indexOf(':');
  if (colon <= 0) return undefined;
  return { name: line.slice(0, colon).trim(), value: line.slice(colon + 1).trim() };
}

/**
 * Headers from several places, the first place winning for a name given in more than one
 * (flags, then environment, then file); a name twice in one place is a mistake. Throws
 * GatewayHeaderError with the one line to show.
 */
export function mergeGatewayHeaders(sources: ReadonlyArray<{ where: string; headers: readonly GatewayHeader[] }>): GatewayHeader[] {
  const merged = new Map<string, GatewayHeader>();
  for (const { where, headers } of sources) {
    const seen = new Set<string>();
    for (const header of headers) {
      const problem = gatewayHeaderProblem(header, where);
      if (problem !== undefined) throw new GatewayHeaderError(problem);
      const key = header.name.toLowerCase();
      if (seen.has(key)) throw new GatewayHeaderError(`${where}: ${header.name} is given twice`);
      seen.add(key);
      if (!merged.has(key)) merged.set(key, header);
    }
  }
  return [...merged.values()];
}

/** The values worth searching for in what the run records (see SECRET_MIN_CHARS). */
export function gatewaySecrets(headers: readonly GatewayHeader[]): string[] {
  return headers.map((h) => h.value).filter((value) => value.length >= SECRET_MIN_CHARS);
}
