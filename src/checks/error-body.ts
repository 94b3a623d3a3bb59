/**
 * ERR-001 (error responses carry an Error body) and ERR-002 (Error.status equals the HTTP status).
 * The two are kept orthogonal: a missing or mistyped `status` field is ERR-001's alone, so a
 * server that breaks one requirement does not fail the other.
 */
import type { Exchange } from '../http/exchange.js';
import { isJsonObject } from '../interface/json.js';
import { validate } from '../interface/validators.js';
import { jsonBody } from './body.js';
import { excerpt } from './text.js';
import { observation, violation, type Finding } from './finding.js';

/** Statuses for which the spec lists an Error body explicitly: the body is required. */
const ERROR_BODY_REQUIRED = new Set([400, 401, 404]);
const SHAPE = 'code string, message string, status integer';

export function checkErrorBody(ex: Exchange): Finding[] {
  const response = ex.response;
  if (response === undefined || response.status < 400) return [];
  const status = response.status;
  const body = jsonBody(ex);

  if (body === undefined) {
    // Other error bodies (429, 405, 5xx) are optional: "Error responses with a body use the Error shape".
    return ERROR_BODY_REQUIRED.has(status)
      ? [violation('ERR-001', `Received a ${status} with an empty body / Expected an Error body (${SHAPE})`, ex.seq)]
      : [];
  }
  if (!body.ok) {
    if (body.truncated === true) return [observation('ERR-001', `${status} body not judged: ${body.error}`, ex.seq)];
    return [violation('ERR-001', `Received a ${status} body that is not JSON (${excerpt(body.error)}) / Expected an Error body (${SHAPE})`, ex.seq)];
  }

  const findings: Finding[] = [];
  const problems = validate('Error', body.value);
  if (problems.length > 0) {
    findings.push(violation('ERR-001', `Received a ${status} body that is not an Error: ${problems.slice(0, 5).join('; ')}${problems.length > 5 ? `; and ${problems.length - 5} more` : ''} / Expected ${SHAPE}`, ex.seq));
  }
  if (isJsonObject(body.value)) {
    const code = body.value['code'];
    if (code === '') {
      findings.push(violation('ERR-001', `Received a ${status} Error whose code is "" / Expected a non-empty machine-readable code`, ex.seq));
    } else if (typeof code === 'string') {
      findings.push(observation('ERR-001', `${status} code ${JSON.stringify(excerpt(code, 40))}`, ex.seq));
    }
    // As for code: an empty message describes nothing, whatever its type says.
    if (body.value['message'] === '') {
      findings.push(violation('ERR-001', `Received a ${status} Error whose message is "" / Expected a non-empty human-readable description`, ex.seq));
    }
    const field = body.value['status'];
    const integral = typeof field === 'bigint' || (typeof field === 'number' && Number.isInteger(field));
    if (integral && BigInt(field) !== BigInt(status)) {
      findings.push(violation('ERR-002', `Received Error.status ${String(field)} on a ${status} response / Expected ${status}`, ex.seq));
    }
  }
  return findings;
}
