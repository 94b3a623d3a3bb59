import type { Report } from './types.js';

/**
 * "153 requests (133 with the key, 20 without)": the keyed ones draw on the key's rate limit, the
 * others (no key, a wrong or malformed one) on whatever the server counts per address. The
 * console and the Markdown summary say it the same way.
 */
export function requestsPhrase(report: Pick<Report, 'requests' | 'requestsByKey'>): string {
  const split = report.requestsByKey;
  return split === undefined ? `${report.requests} requests` : `${report.requests} requests (${split.withKey} with the key, ${split.withoutKey} without)`;
}
