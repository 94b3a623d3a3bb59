/** The server's clock when it answered: its Date header, else the local time the answer arrived. */
import type { Exchange } from '../http/exchange.js';
import { parseHttpDateAnyForm } from '../http/retry-after.js';

export function serverTimeOf(ex: Exchange): number {
  const received = ex.sentAt + ex.elapsedMs;
  return parseHttpDateAnyForm(ex.response?.headers['date'], received)?.ms ?? received;
}
