/**
 * The user's own mistakes, caught in one or two requests before the suites spend the budget: a
 * key the target rejects would otherwise show as a run of 401 "failures", a base URL without
 * /v1 as a run of 404s. Both stop the client (exit 2: the run could not be made), never a
 * verdict on the server. The requests go through the run's client: counted, paced, checked.
 */
import { isClientError } from '../http/errors.js';
import type { Exchange } from '../http/exchange.js';
import type { Session } from './session.js';

export const BAD_KEY_MESSAGE = 'the API key was rejected (401): check PETSTORE_API_KEY';

export function wrongBaseUrlMessage(baseUrl: string, status: number): string {
  return `${baseUrl}/pets answers 404 while ${baseUrl}/v1/pets answers ${status}: use --base-url ${baseUrl}/v1`;
}

async function statusOf(send: () => Promise<Exchange>): Promise<number | undefined> {
  try {
    return (await send()).response?.status;
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
async function censusStatus(session: Session): Promise<number | undefined> {
  const status = await statusOf(async () => (await session.census()).exchange);
  if (status !== 200) session.invalidateCensus();
  return status;
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

export async function preflight(session: Session): Promise<void> {
  const status = await censusStatus(session);
  if (status === 401) {
    session.client.stop('bad-key', BAD_KEY_MESSAGE);
    return;
  }
  const base = session.config.baseUrl.replace(/\/+$/, '');
  if (status !== 404 || new URL(base).pathname.endsWith('/v1')) return;
  const v1 = await statusOf(() => session.client.send({ method: 'GET', path: '/v1/pets', query: [['limit', '1']], purpose: 'preflight' }));
  if (v1 !== undefined && v1 !== 404) session.client.stop('wrong-base-url', wrongBaseUrlMessage(base, v1));
}
