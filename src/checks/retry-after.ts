/** RATE-005's format part: every 429 carries a Retry-After that parses as delta-seconds or an HTTP-date. */
import type { Exchange } from '../http/exchange.js';
import { parseRetryAfter } from '../http/retry-after.js';
import { serverTimeOf, type ServerClock } from './server-clock.js';
import { excerpt } from './text.js';
import { observation, violation, type Finding } from './finding.js';

const REQ = 'RATE-005';

export function checkRetryAfter(ex: Exchange, clock?: ServerClock): Finding[] {
  const response = ex.response;
  if (response === undefined || response.status !== 429) return [];
  const value = response.headers['retry-after'];
  if (value === undefined) {
    return [violation(REQ, 'Received a 429 without Retry-After / Expected Retry-After as delta-seconds or an HTTP-date', ex.seq)];
  }
  // An HTTP-date is relative to the server's clock; the local clock stands in when there is no Date.
  const parsed = parseRetryAfter(value, serverTimeOf(ex, clock));
  if (parsed === undefined) {
    return [violation(REQ, `Received Retry-After ${JSON.stringify(excerpt(value, 60))} / Expected delta-seconds (e.g. 30) or an HTTP-date`, ex.seq)];
  }
  const seconds = Math.round(parsed.delayMs / 1000);
  if (parsed.form === 'delta-seconds') {
    return [observation(REQ, `Retry-After in delta-seconds: ${value.trim()}`, ex.seq)];
  }
  // The unit and format are not shown, so obsolete HTTP-date forms are recorded, not failed.
  const obsolete = parsed.dateForm !== undefined && parsed.dateForm !== 'imf-fixdate' ? ` (obsolete ${parsed.dateForm} form)` : '';
  return [observation(REQ, `Retry-After as an HTTP-date${obsolete}: ${excerpt(value.trim(), 40)}, ${seconds} s ahead`, ex.seq)];
}
