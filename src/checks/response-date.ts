/** The server's own clock as a response states it, for checks that compare its headers in time. */
import type { Exchange } from '../http/exchange.js';
import { parseHttpDateAnyForm, retryAfterDelayMs } from '../http/retry-after.js';

/** Unix ms of the response's Date header (whole seconds, truncated); undefined without a usable one. */
export function responseDateMs(ex: Exchange): number | undefined {
  return parseHttpDateAnyForm(ex.response?.headers['date'], ex.sentAt)?.ms;
}

/** Unix ms on the local clock at which the response arrived. */
export const receivedAt = (ex: Exchange): number => ex.sentAt + ex.elapsedMs;

/** The server's clock when it answered: its Date header, else the local time the answer arrived. */
export function serverTimeOf(ex: Exchange): number {
  const received = receivedAt(ex);
  return parseHttpDateAnyForm(ex.response?.headers['date'], received)?.ms ?? received;
}

/** Unix ms on the local clock at which the response's Retry-After has passed; undefined without a usable one. */
export function retryAfterPassesAt(ex: Exchange): number | undefined {
  if (ex.response === undefined) return undefined;
  const delay = retryAfterDelayMs(ex.response.headers, receivedAt(ex));
  return delay === undefined ? undefined : receivedAt(ex) + delay;
}
