/**
 * The user's own mistakes, caught in at most three requests before the suites spend the budget: a
 * key the target rejects would otherwise show as a run of 401 "failures", a base URL without
 * /v1, with a prefix the server does not serve or with /pets on its end as a run of 404s. Both stop the client (exit 2: the run could not be made), never a
 * verdict on the server. The requests go through the run's client: counted, paced, checked.
 */
import { isClientError } from '../http/errors.js';
import type { Exchange } from '../http/exchange.js';
import { speaksTls } from '../http/speaks-tls.js';
import type { Session } from './session.js';

export const BAD_KEY_MESSAGE = 'the API key was rejected (401): check PETSTORE_API_KEY';

/** `requested`: the base URL as given; `answered`: the URL whose /pets answered like this API. */
export function wrongBaseUrlMessage(requested: string, came: string, answered: string, status: number): string {
  return `${requested}/pets answers ${came} while ${answered}/pets answers ${status}: use --base-url ${answered}`;
}

/**
 * The base paths a mistyped one most likely meant, most likely first: the operation's path given
 * with the base ("/v1/pets": "/v1"), /v1 left out ("/api": "/api/v1"), a prefix the server does
 * not serve ("/api/v1": "/v1").
 */
export function candidateBasePaths(basePath: string): string[] {
  const candidates: string[] = [];
  if (basePath.endsWith('/pets')) candidates.push(basePath.slice(0, -'/pets'.length));
  else if (!basePath.endsWith('/v1')) candidates.push(`${basePath}/v1`);
  const segments = basePath.split('/');
  if (segments.indexOf('v1') > 1) candidates.push('/v1');
  return [...new Set(candidates)].filter((c) => c !== basePath);
}

/**
 * What a response says of the base URL: '404', or 'not this API' when it is plainly another
 * service's (a page of HTML, or JSON that is not the listing's array), or undefined when it could
 * be this API's, conforming or not: those are the suites' to judge.
 */
export function notThisApi(response: Exchange['response']): string | undefined {
  if (response === undefined) return undefined;
  if (response.status === 404) return '404';
  if (response.status !== 200) return undefined;
  const type = response.headers['content-type'] ?? '';
  if (/html/i.test(type) || /^\s*</.test(response.bodyText)) return `${response.status} with HTML`;
  try {
    const body: unknown = JSON.parse(response.bodyText);
    if (!Array.isArray(body)) return `${response.status} with JSON that is not a list of pets`;
  } catch {
    return undefined;
  }
  return undefined;
}

function answersLikeThisApi(exchange: Exchange | undefined): boolean {
  const response = exchange?.response;
  return response !== undefined && notThisApi(response) === undefined && response.status < 500;
}

async function exchangeOf(send: () => Promise<Exchange>): Promise<Exchange | undefined> {
  try {
    return await send();
  } catch (error) {
    // The suites meet the same stop (budget, halt, transport) and report it with its reason.
    if (isClientError(error)) return undefined;
    throw error;
  }
}

/**
 * The census (the limit=100 listing every suite reads) is the first request: it answers the
 * preflight's question too, so the check costs the key's window nothing. A census that was not
 * answered with a page is forgotten, so the first suite that needs one takes it again.
 */
async function censusExchange(session: Session): Promise<Exchange | undefined> {
  const exchange = await exchangeOf(async () => (await session.store.census()).exchange);
  if (exchange?.response?.status !== 200) session.store.invalidateCensus();
  return exchange;
}

const done = new WeakMap<Session, Promise<void>>();

/**
 * The preflight, once per session, awaited by every test before its body: whichever test comes
 * first, nothing else is sent before it, without relying on the order of hooks across files.
 */
export function preflightOnce(session: Session): Promise<void> {
  let running = done.get(session);
  if (running === undefined) {
    running = preflight(session);
    done.set(session, running);
  }
  return running;
}

/** nginx's answer to plain HTTP on its TLS port (others' say much the same). */
const PLAIN_HTTP_TO_TLS_PORT = /plain HTTP request was sent to HTTPS port|speak plain HTTP to an SSL-enabled server|client sent an HTTP request to an HTTPS server/i;

/**
 * An http:// base URL on a port that speaks TLS: the server answers the plain request with a 400
 * that says so, or cannot parse it at all (a reset, an alert), and then answers a TLS handshake.
 */
async function tlsPort(session: Session, base: URL, census: Exchange | undefined): Promise<boolean> {
  if (base.protocol !== 'http:') return false;
  const response = census?.response;
  if (response !== undefined) return response.status === 400 && PLAIN_HTTP_TO_TLS_PORT.test(response.bodyText);
  // No response: the census failed in transport (a halted client has its own reason already).
  if (session.client.stopped !== undefined || session.config.proxy?.route !== undefined) return false;
  return speaksTls(base.hostname.replace(/^\[|\]$/g, ''), base.port === '' ? 80 : Number(base.port), session.config.timeoutMs);
}

export async function preflight(session: Session): Promise<void> {
  const census = await censusExchange(session);
  if (census?.response?.status === 401) {
    session.client.stop('bad-key', BAD_KEY_MESSAGE);
    return;
  }
  const base = new URL(session.config.baseUrl);
  if (await tlsPort(session, base, census)) {
    const https = new URL(base.href);
    https.protocol = 'https:';
    session.client.stop('wrong-base-url', `${base.host} speaks TLS, not plain HTTP: use https://, --base-url ${https.href.replace(/\/+$/, '')}`);
    return;
  }
  const basePath = base.pathname.replace(/\/+$/, '');
  const status = census?.response?.status;
  // With a base ending in /pets the listing's path is getPet's, for the pet id "pets": its 400 is no listing either.
  const came = notThisApi(census?.response) ?? (basePath.endsWith('/pets') && status !== undefined && status !== 200 ? String(status) : undefined);
  if (came === undefined) return;
  const requested = `${base.origin}${basePath}`;
  // At most two requests, each a one-pet listing: the key's window keeps its budget for the run.
  for (const path of candidateBasePaths(basePath)) {
    const answer = await exchangeOf(() =>
      session.client.send({ method: 'GET', path: `${path}/pets`, fromOrigin: true, query: [['limit', '1']], purpose: 'preflight' }),
    );
    if (session.client.stopped !== undefined) return;
    if (answersLikeThisApi(answer) && answer?.response !== undefined) {
      session.client.stop('wrong-base-url', wrongBaseUrlMessage(requested, came, `${base.origin}${path}`, answer.response.status));
      return;
    }
  }
}
