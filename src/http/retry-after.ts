/**
 * Retry-After and HTTP-date parsing (RFC 9110 sections 10.2.3 and 5.6.7).
 *
 * The client uses parseRetryAfter to decide how long to back off; the checks use the same
 * functions to judge the headers, so both agree on what counts as well-formed.
 */

export type HttpDateForm = 'imf-fixdate' | 'rfc850' | 'asctime';

export interface RetryAfter {
  delayMs: number;
  form: 'delta-seconds' | 'http-date';
  /** Which HTTP-date format was used: senders must generate IMF-fixdate, so checks may flag the others. */
  dateForm?: HttpDateForm;
}

const DAY_NAMES = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;
const DAY_NAMES_LONG = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;

// HTTP-date is case-sensitive (RFC 9110 5.6.7), so these patterns deliberately have no `i` flag.
const IMF_FIXDATE =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d{2}) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const RFC850_DATE =
  /^(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\d{2})-(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const ASCTIME_DATE =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) ( \d|\d{2}) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;

const DELTA_SECONDS = /^\d+$/;

/** Leading and trailing optional whitespace (SP / HTAB) is not part of a field value. */
function trimOws(value: string): string {
  return value.replace(/^[ \t]+|[ \t]+$/g, '');
}

/**
 * Builds the instant, or undefined when a component is out of range, the day does not exist
 * in that month, or the weekday contradicts the date (a wrong weekday means the sender
 * computed the date wrongly, so the value cannot be trusted).
 */
function buildDate(
  weekday: number,
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
): number | undefined {
  if (hour > 23 || minute > 59 || second > 60 || day < 1) return undefined;
  // setUTCFullYear, unlike Date.UTC, does not map years 0..99 onto 1900..1999.
  const date = new Date(0);
  date.setUTCFullYear(year, month, day);
  if (date.getUTCMonth() !== month || date.getUTCDate() !== day) return undefined;
  if (date.getUTCDay() !== weekday) return undefined;
  // Second 60 is allowed by the grammar for leap seconds; it rolls into the next minute.
  date.setUTCHours(hour, minute, second, 0);
  return date.getTime();
}

function monthIndex(name: string): number {
  return MONTHS.indexOf(name as (typeof MONTHS)[number]);
}

type ParsedHttpDate = Readonly<{ ms: number; form: HttpDateForm }>;

/**
 * Values already parsed, when the answer does not depend on nowMs (every form but rfc850-date):
 * a run's checks and its window planning read the Date header of every response several times
 * (the window top-up reads the last 40 at every send), and consecutive responses share a second.
 */
const PARSED_DATES = new Map<string, { parsed: ParsedHttpDate | undefined }>();
const PARSED_DATES_MAX = 256;

/**
 * Parses any of the three HTTP-date formats, as recipients must (RFC 9110 5.6.7), and says
 * which one it was. nowMs resolves the two-digit year of rfc850-date.
 */
export function parseHttpDateAnyForm(value: string | undefined, nowMs: number = Date.now()): ParsedHttpDate | undefined {
  if (value === undefined) return undefined;
  const known = PARSED_DATES.get(value);
  if (known !== undefined) return known.parsed;
  const v = trimOws(value);
  const parsed = parseHttpDateUncached(v, nowMs);
  if (!RFC850_DATE.test(v)) {
    if (PARSED_DATES.size >= PARSED_DATES_MAX) PARSED_DATES.clear();
    PARSED_DATES.set(value, { parsed: parsed === undefined ? undefined : Object.freeze(parsed) });
  }
  return parsed;
}

function parseHttpDateUncached(v: string, nowMs: number): { ms: number; form: HttpDateForm } | undefined {

  const imf = IMF_FIXDATE.exec(v);
  if (imf) {
    const [, wd, dd, mon, yyyy, hh, mm, ss] = imf as unknown as [string, string, string, string, string, string, string, string];
    const ms = buildDate(
      DAY_NAMES.indexOf(wd as (typeof DAY_NAMES)[number]),
      Number(yyyy),
      monthIndex(mon),
      Number(dd),
      Number(hh),
      Number(mm),
      Number(ss),
    );
    return ms === undefined ? undefined : { ms, form: 'imf-fixdate' };
  }

  const rfc850 = RFC850_DATE.exec(v);
  if (rfc850) {
    const [, wd, dd, mon, yy, hh, mm, ss] = rfc850 as unknown as [string, string, string, string, string, string, string, string];
    // RFC 9110: a two-digit year more than 50 years in the future means the most recent past
    // year with the same last two digits.
    const nowYear = new Date(nowMs).getUTCFullYear();
    let year = Math.floor(nowYear / 100) * 100 + Number(yy);
    if (year > nowYear + 50) year -= 100;
    const ms = buildDate(
      DAY_NAMES_LONG.indexOf(wd as (typeof DAY_NAMES_LONG)[number]),
      year,
      monthIndex(mon),
      Number(dd),
      Number(hh),
      Number(mm),
      Number(ss),
    );
    return ms === undefined ? undefined : { ms, form: 'rfc850' };
  }

  const asc = ASCTIME_DATE.exec(v);
  if (asc) {
    const [, wd, mon, d, hh, mm, ss, yyyy] = asc as unknown as [string, string, string, string, string, string, string, string];
    const ms = buildDate(
      DAY_NAMES.indexOf(wd as (typeof DAY_NAMES)[number]),
      Number(yyyy),
      monthIndex(mon),
      Number(d.trim()),
      Number(hh),
      Number(mm),
      Number(ss),
    );
    return ms === undefined ? undefined : { ms, form: 'asctime' };
  }
  return undefined;
}

/**
 * Strict IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT") to Unix ms; undefined for anything
 * else, including the obsolete formats, a wrong weekday or an impossible date. This is the
 * format senders must generate, so checks judging a header use this one.
 */
export function parseHttpDate(value: string | undefined): number | undefined {
  const parsed = parseHttpDateAnyForm(value);
  return parsed?.form === 'imf-fixdate' ? parsed.ms : undefined;
}

/**
 * Retry-After = HTTP-date / delay-seconds. Returns the delay from nowMs (never negative:
 * a date in the past means "now"), or undefined when the value is absent or malformed.
 * Obsolete date formats are accepted (reported through dateForm) because backing off on a
 * sloppy date is safer than ignoring it.
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): RetryAfter | undefined {
  const parsed = retryAfterValueOf(value, nowMs);
  if (parsed === undefined) return undefined;
  const delayMs = retryAfterDelayFrom(parsed, nowMs);
  return parsed.form === 'delta-seconds' ? { delayMs, form: 'delta-seconds' } : { delayMs, form: 'http-date', dateForm: parsed.dateForm };
}

/** A Retry-After as sent, before any clock is read: a delay, or the moment an HTTP-date names. */
export type RetryAfterValue = { form: 'delta-seconds'; delayMs: number } | { form: 'http-date'; atMs: number; dateForm: HttpDateForm };

/** Retry-After parsed (parseRetryAfter's rule); nowMs resolves only an rfc850-date's two-digit year. */
export function retryAfterValueOf(value: string | undefined, nowMs: number): RetryAfterValue | undefined {
  if (value === undefined) return undefined;
  const v = trimOws(value);
  if (DELTA_SECONDS.test(v)) return { delayMs: Number(v) * 1000, form: 'delta-seconds' };
  const date = parseHttpDateAnyForm(v, nowMs);
  return date === undefined ? undefined : { form: 'http-date', atMs: date.ms, dateForm: date.form };
}

/** How long after `fromMs` the Retry-After has passed; never negative (a date in the past means "now"). */
export function retryAfterDelayFrom(value: RetryAfterValue, fromMs: number): number {
  return value.form === 'delta-seconds' ? value.delayMs : Math.max(0, value.atMs - fromMs);
}

/**
 * How long after a response arrived its Retry-After has passed, in ms; undefined when absent or
 * malformed. An HTTP-date is measured against the response's own Date (the server's clock), so a
 * client clock that is off does not move the moment; without a Date the local clock stands in.
 */
export function retryAfterDelayMs(headers: Readonly<Record<string, string>>, receivedAtMs: number): number | undefined {
  const dateMs = parseHttpDateAnyForm(headers['date'], receivedAtMs)?.ms;
  const parsed = parseRetryAfter(headers['retry-after'], dateMs ?? receivedAtMs);
  return parsed?.delayMs;
}
