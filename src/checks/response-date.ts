/** A response's own Date and local times; server-clock.ts places a response on the server's clock from them. */
import type { Exchange } from '../http/exchange.js';
import { parseHttpDateAnyForm, retryAfterDelayMs } from '../http/retry-after.js';

/** Unix ms of the response's Date header (whole seconds, truncated); undefined without a usable one. */
export function responseDateMs(ex: Exchange): number | undefined {
  return parseHttpDateAnyForm(ex.response?.headers['date'], ex.sentAt)?.ms;
}

/** Unix ms on the local clock at which the response arrived. */
export const receivedAt = (ex: Exchange): number => ex.sentAt + ex.elapsedMs;

/** Unix ms on the local clock at which the response's Retry-After has passed; undefined without a usable one. */
export function retryAfterPassesAt(ex: Exchange): number | undefined {
  if (ex.response === undefined) return undefined;
  const delay = retryAfterDelayMs(ex.response.headers, receivedAt(ex));
  return delay === undefined ? undefined : receivedAt(ex) + delay;
}
