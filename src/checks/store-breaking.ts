/**
 * CREATE-005 (--risk-breaking-store): the answer to a createPet whose name a store may not survive,
 * and the reads that follow (LIST-001, GET-001). Pure: (probe, exchange) -> findings.
 *
 * The create: 400, or 201 whose body is UTF-8 JSON showing the name as text (src/arbitraries/
 * store-breaking.ts, nameReading). The reads: 200, a UTF-8 body, the JSON they must be. A 500
 * there is what every client of a broken store meets from then on.
 */
import type { Exchange } from '../http/exchange.js';
import { isJsonObject, type JsonObject } from '../interface/json.js';
import { nameReading, type StoreBreakingProbe } from '../arbitraries/store-breaking.js';
import { jsonBody } from './body.js';
import { observation, violation, type Finding } from './finding.js';
import { illFormedUtf8Text } from './utf8-body.js';

const REQ = 'CREATE-005';

/** What a probe's createPet showed: the pet a 201 returned, and whether the answer says if a pet was stored. */
export interface ProbeAnswer {
  findings: Finding[];
  /** The Pet of a 201 whose body was one. */
  pet?: JsonObject;
  /** 201 (stored, the pet above) or a 4xx refusal (nothing stored, by its word); false for a 5xx or no answer, which may have stored one. */
  accounted: boolean;
  /** Why the answer could not be judged (a 429 even after the client's retry). */
  undecided?: string;
}

const notUtf8 = (ex: Exchange): string => illFormedUtf8Text(ex) ?? 'its bytes stop being UTF-8';

/** CREATE-005 on one probe's createPet. */
export function judgeProbeCreate(probe: StoreBreakingProbe, marker: string, ex: Exchange): ProbeAnswer {
  const status = ex.response?.status;
  const expected = probe.replaceable ? 'Expected 400, or 201 with the name as text (as sent, or with U+FFFD for what is not text)' : 'Expected 400, or 201 with the name kept exactly';
  const fail = (message: string, accounted: boolean): ProbeAnswer => ({ findings: [violation(REQ, `${probe.kind}: ${message} / ${expected}`, ex.seq)], accounted });
  if (status === undefined) return fail(`no answer (${ex.error?.code ?? 'error'}) to a createPet whose name holds ${probe.holds}`, false);
  if (status === 429) return { findings: [], accounted: false, undecided: `${probe.kind}: the createPet was answered 429 even after the client's retry` };
  if (status === 400) return { findings: [observation(REQ, `${probe.kind}: refused with 400 (${probe.refusal}), as the spec allows`, ex.seq)], accounted: true };
  if (status >= 400 && status < 500) return fail(`received ${status} for a createPet whose name holds ${probe.holds} (the spec's refusal is 400)`, true);
  if (status !== 201) return fail(`received ${status} for a createPet whose name holds ${probe.holds}: a server error on client input is never conforming`, false);
  // The pet is stored, whatever the 201's body shows; its id is read even from bytes that are not UTF-8, so it can be fetched.
  const body = jsonBody(ex);
  const pet = body?.ok === true && isJsonObject(body.value) ? body.value : undefined;
  if (illFormedUtf8Text(ex) !== undefined) {
    return { ...fail(`received a 201 whose body is not UTF-8 (${notUtf8(ex)}): the store kept the name as bytes that are not text`, true), ...(pet === undefined ? {} : { pet }) };
  }
  if (pet === undefined) return fail('received a 201 whose body is not a JSON object', true);
  const name = pet['name'];
  const reading = typeof name === 'string' ? nameReading(probe, marker, name) : undefined;
  const shownName = typeof name === 'string' ? JSON.stringify(name) : name === undefined ? 'absent' : String(name);
  if (reading === undefined) return { ...fail(`the 201 shows the name ${shownName}, which is neither the name sent nor it with U+FFFD in place of what is not text`, true), pet };
  const how = reading === 'exact' ? 'stored and shown back exactly' : 'stored with U+FFFD in place of each part that is not text';
  return { findings: [observation(REQ, `${probe.kind}: 201, the name ${how}`, ex.seq)], pet, accounted: true };
}

/** A read that follows the probes (listPets for LIST-001, getPet for GET-001), judged for `requirement`. */
export function judgeReadAfterProbes(requirement: 'LIST-001' | 'GET-001', ex: Exchange, what: string, expectedId?: bigint): Finding[] {
  const status = ex.response?.status;
  const shape = requirement === 'LIST-001' ? 'a JSON array of Pets' : 'the Pet';
  const fail = (message: string): Finding[] => [violation(requirement, `${ex.request.method} ${ex.request.target} ${what}: ${message} / Expected 200 and ${shape}`, ex.seq)];
  if (status !== 200) return fail(`received ${status ?? ex.error?.code}`);
  if (illFormedUtf8Text(ex) !== undefined) return fail(`received a body that is not UTF-8 (${notUtf8(ex)}), so not JSON text`);
  const body = jsonBody(ex);
  if (body?.ok !== true) return fail('received a body that is not JSON');
  if (requirement === 'LIST-001') return Array.isArray(body.value) ? [] : fail('received JSON that is not an array');
  if (!isJsonObject(body.value)) return fail('received JSON that is not an object');
  const id = body.value['id'];
  const shown = typeof id === 'bigint' ? id : typeof id === 'number' && Number.isInteger(id) ? BigInt(id) : undefined;
  return expectedId === undefined || shown === expectedId ? [] : fail(`received pet ${String(id)}`);
}
