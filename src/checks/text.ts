/** Message helpers: findings cite values, never whole bodies, and dates in one readable form. */

/** First `n` characters of a value, so a finding never carries a whole body or header. */
export function excerpt(value: string, n = 60): string {
  return value.length <= n ? value : `${value.slice(0, n)}…`;
}

/** ISO 8601 for a Unix ms instant; instants beyond Date's range are shown as the raw number. */
export function iso(ms: number): string {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? `${ms} ms` : d.toISOString();
}
