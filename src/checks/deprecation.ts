/**
 * GET-004 (Deprecation and Sunset, when present, are well-formed and consistent, and on getPet
 * alone) and GET-005 (Sunset names 5 December 2030). The spec does not require the headers, so
 * their absence yields nothing at all.
 */
import type { Exchange } from '../http/exchange.js';
import { parseHttpDate, parseHttpDateAnyForm } from '../http/retry-after.js';
import { operationOf } from './body.js';
import { excerpt, iso } from './text.js';
import { observation, violation, type Finding } from './finding.js';

/** The removal date the spec announces, as a UTC calendar date. */
export const SUNSET_DAY = '2030-12-05';

/**
 * RFC 9745: Deprecation is a structured-field Date (RFC 9651 sf-date, "@" then an sf-integer of
 * at most 15 digits). Item parameters are legal on any structured-field item, so they are
 * accepted rather than failing a server that adds one.
 */
const SF_DATE = /^@(-?[0-9]{1,15})((?:;[ ]*[a-z*][a-z0-9_\-.*]*(?:=(?:"(?:[^"\\]|\\.)*"|[^;"]+))?)*)$/;

/** Structured-field parsing discards leading and trailing spaces (RFC 9651 4.2). */
function sfTrim(value: string): string {
  return value.replace(/^ +| +$/g, '');
}


/** Deprecation's instant in ms, or a message saying why the value is not an RFC 9745 date. */
function parseDeprecation(value: string): { ms: number } | { error: string } {
  const v = sfTrim(value);
  const m = SF_DATE.exec(v);
  if (m !== null && m[1] !== undefined) return { ms: Number(m[1]) * 1000 };
  if (/^(true|\?1)$/i.test(v)) {
    return { error: `Received Deprecation ${JSON.stringify(v)} / Expected a date, as RFC 9745 needs (e.g. @1688169599); "true" is the pre-RFC draft form` };
  }
  return { error: `Received Deprecation ${JSON.stringify(excerpt(v, 60))} / Expected an RFC 9745 structured-field date, @<Unix seconds> (e.g. @1688169599)` };
}

/** Sunset's instant in ms, or a message saying why the value is not an IMF-fixdate HTTP-date. */
function parseSunset(value: string, nowMs: number): { ms: number } | { error: string } {
  const ms = parseHttpDate(value);
  if (ms !== undefined) return { ms };
  const loose = parseHttpDateAnyForm(value, nowMs);
  if (loose !== undefined) {
    return { error: `Received Sunset ${JSON.stringify(excerpt(value, 60))} in the obsolete ${loose.form} form / Expected an IMF-fixdate (RFC 9110 5.6.7: senders generate IMF-fixdate), e.g. Thu, 05 Dec 2030 00:00:00 GMT` };
  }
  return { error: `Received Sunset ${JSON.stringify(excerpt(value, 60))} / Expected an HTTP-date (RFC 8594), e.g. Thu, 05 Dec 2030 00:00:00 GMT` };
}

/**
 * Deprecation or Sunset on another operation announces a deprecation the spec does not make: it
 * deprecates getPet alone, and names listPets as its replacement.
 */
function deprecatedElsewhere(ex: Exchange, operation: string): Finding[] {
  const headers = ['Deprecation', 'Sunset'].filter((name) => ex.response?.headers[name.toLowerCase()] !== undefined);
  if (headers.length === 0) return [];
  return [violation('GET-004', `Received ${headers.join(' and ')} on ${operation} / Expected them on getPet alone: the spec deprecates no other operation (listPets is getPet's replacement)`, ex.seq)];
}

export function checkDeprecation(ex: Exchange): Finding[] {
  const response = ex.response;
  const operation = operationOf(ex);
  if (response === undefined || operation === undefined) return [];
  if (operation !== 'getPet') return deprecatedElsewhere(ex, operation);
  const deprecationValue = response.headers['deprecation'];
  const sunsetValue = response.headers['sunset'];
  if (deprecationValue === undefined && sunsetValue === undefined) return [];

  const findings: Finding[] = [];
  const seen: string[] = [];
  let deprecationMs: number | undefined;
  let sunsetMs: number | undefined;

  if (deprecationValue !== undefined) {
    const d = parseDeprecation(deprecationValue);
    if ('error' in d) findings.push(violation('GET-004', d.error, ex.seq));
    else deprecationMs = d.ms;
    seen.push(`Deprecation ${excerpt(sfTrim(deprecationValue), 40)}${deprecationMs === undefined ? '' : ` (${iso(deprecationMs)})`}`);
  }

  if (sunsetValue !== undefined) {
    const s = parseSunset(sunsetValue, ex.sentAt);
    if ('error' in s) findings.push(violation('GET-004', s.error, ex.seq));
    else sunsetMs = s.ms;
    seen.push(`Sunset ${excerpt(sunsetValue.trim(), 40)}`);
    // The removal date is judged even on an obsolete date form: GET-005 is about the day, not the syntax.
    const dayMs = sunsetMs ?? parseHttpDateAnyForm(sunsetValue, ex.sentAt)?.ms;
    if (dayMs !== undefined) {
      const day = new Date(dayMs).toISOString().slice(0, 10);
      if (day !== SUNSET_DAY) {
        findings.push(violation('GET-005', `Received Sunset ${JSON.stringify(excerpt(sunsetValue.trim(), 40))} (${day}) / Expected a time on ${SUNSET_DAY} (UTC), the removal date the spec announces`, ex.seq));
      } else {
        findings.push(observation('GET-005', `Sunset names ${SUNSET_DAY}: ${excerpt(sunsetValue.trim(), 40)}`, ex.seq));
      }
    }
  }

  if (deprecationMs !== undefined && sunsetMs !== undefined && sunsetMs < deprecationMs) {
    findings.push(violation('GET-004', `Received Sunset ${iso(sunsetMs)} before Deprecation ${iso(deprecationMs)} / Expected Sunset not earlier than Deprecation`, ex.seq));
  }
  findings.push(observation('GET-004', `getPet carries ${seen.join(', ')}`, ex.seq));
  return findings;
}
