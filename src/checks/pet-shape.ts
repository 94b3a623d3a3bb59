/** PET-001 (every Pet has the Pet shape) and PET-002 (ids unique within a listing). */
import type { Exchange } from '../http/exchange.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../interface/json.js';
import { extraProperties, validate } from '../interface/validators.js';
import { jsonBody, operationOf } from './body.js';
import { excerpt } from './text.js';
import { observation, violation, type Finding } from './finding.js';

/** Distinct schema errors named per response; the rest only add noise. */
const MAX_MESSAGES = 5;
/** Items named in a detail; a listing can break the same way in all of its 100 items. */
const MAX_ITEMS = 5;

type PetBearing = 'list' | 'single';

function petBearing(ex: Exchange): PetBearing | undefined {
  const status = ex.response?.status;
  const op = operationOf(ex);
  if (op === 'listPets' && status === 200) return 'list';
  if ((op === 'createPet' && status === 201) || (op === 'getPet' && status === 200)) return 'single';
  return undefined;
}

/**
 * The Pet objects a response carries: the object items of a listPets 200 array, or the body of a
 * createPet 201 / getPet 200. Empty for anything else, including a listing that is not an array.
 */
export function petsOf(ex: Exchange): JsonObject[] {
  const kind = petBearing(ex);
  const body = jsonBody(ex);
  if (kind === undefined || body === undefined || !body.ok) return [];
  if (kind === 'list') return Array.isArray(body.value) ? body.value.filter(isJsonObject) : [];
  return isJsonObject(body.value) ? [body.value] : [];
}

/** The exact value of an integral id, as a decimal string; undefined for anything PET-001 rejects. */
export function idKey(id: JsonValue | undefined): string | undefined {
  if (typeof id === 'bigint') return id.toString();
  if (typeof id === 'number' && Number.isSafeInteger(id)) return BigInt(id).toString();
  return undefined;
}

/** "pets #4, #6 and 3 more of 100": items by their 1-based position, as a reader counts them. */
function itemsText(indices: readonly number[], total: number): string {
  const named = indices.slice(0, MAX_ITEMS).map((i) => `#${i + 1}`).join(', ');
  const more = indices.length > MAX_ITEMS ? ` and ${indices.length - MAX_ITEMS} more` : '';
  return `${indices.length === 1 ? 'pet' : 'pets'} ${named}${more} of ${total}`;
}

function where(message: string, single: boolean): string {
  const root = message.startsWith('(root) ');
  const text = root ? message.slice('(root) '.length) : message;
  if (single) return root ? `the body ${text}` : `the body: ${text}`;
  return root ? `a pet in the listing ${text}` : `a pet in the listing: ${text}`;
}

/**
 * One violation per distinct schema error of a response, worded the same whichever items or
 * response show it (so the report can count responses); which items is the detail.
 */
function schemaFindings(errors: ReadonlyArray<{ message: string; index?: number }>, total: number, ex: Exchange): Finding[] {
  const byMessage = new Map<string, number[]>();
  for (const e of errors) byMessage.set(e.message, [...(byMessage.get(e.message) ?? []), ...(e.index === undefined ? [] : [e.index])]);
  const distinct = [...byMessage];
  const shown = distinct.slice(0, MAX_MESSAGES).map(([message, indices]) =>
    violation('PET-001', where(message, indices.length === 0), ex.seq, indices.length === 0 ? undefined : itemsText(indices, total)),
  );
  if (distinct.length > MAX_MESSAGES) {
    shown.push(violation('PET-001', 'further Pet schema errors in the same response', ex.seq, `${distinct.length - MAX_MESSAGES} more distinct errors`));
  }
  return shown;
}

function duplicateIds(items: readonly JsonValue[], ex: Exchange): Finding[] {
  const seen = new Map<string, number[]>();
  items.forEach((item, index) => {
    if (!isJsonObject(item)) return;
    const key = idKey(item['id']);
    if (key === undefined) return;
    const at = seen.get(key);
    if (at === undefined) seen.set(key, [index]);
    else at.push(index);
  });
  const findings: Finding[] = [];
  for (const [key, at] of seen) {
    if (at.length < 2) continue;
    findings.push(violation('PET-002', 'Received one id on several pets of a listing / Expected unique ids in one listing', ex.seq, `id ${key} on ${itemsText(at, items.length)}`));
  }
  return findings;
}

/**
 * A Pet the server made from a body it should have refused repeats what that body held: the
 * defect is the acceptance (CREATE-003), so the shape errors it carries are noted, not failed.
 */
function excusedNote(ex: Exchange, index: number | undefined, messages: readonly string[]): Finding[] {
  if (messages.length === 0) return [];
  const where = index === undefined ? 'the created pet' : `pet #${index + 1} of the listing`;
  return [observation('PET-001', `${where} was created from a body the service should have refused (CREATE-003), so its shape (${messages[0] ?? ''}) is judged there`, ex.seq)];
}

export function checkPetShape(ex: Exchange, excused: (pet: JsonValue) => boolean = () => false): Finding[] {
  const kind = petBearing(ex);
  if (kind === undefined || ex.response === undefined) return [];
  const status = ex.response.status;
  const body = jsonBody(ex);

  if (kind === 'list') {
    // A listing that is not an array is LIST-001's finding; there are no Pets to judge.
    if (body === undefined || !body.ok || !Array.isArray(body.value)) return [];
    const items = body.value;
    // Every item, not only the objects: a number in a Pets array is a Pet that is not an object.
    const errors = items.flatMap((item, index) => (excused(item) ? [] : validate('Pet', item).map((message) => ({ message, index }))));
    const notes = items.flatMap((item, index) => (excused(item) ? excusedNote(ex, index, validate('Pet', item)) : []));
    const findings = [...schemaFindings(errors, items.length, ex), ...notes, ...duplicateIds(items, ex)];
    return [...findings, ...extraFields(items, ex)];
  }

  if (body === undefined) return [violation('PET-001', `Received an empty ${status} body / Expected a Pet`, ex.seq)];
  if (!body.ok) {
    if (body.truncated === true) return [observation('PET-001', `${status} body not judged: ${body.error}`, ex.seq)];
    return [violation('PET-001', `Received a ${status} body that is not JSON (${excerpt(body.error)}) / Expected a Pet`, ex.seq)];
  }
  if (excused(body.value)) return excusedNote(ex, undefined, validate('Pet', body.value));
  const errors = validate('Pet', body.value).map((message) => ({ message }));
  return [...schemaFindings(errors, 1, ex), ...extraFields(body.value, ex)];
}

/** The spec does not forbid extra fields; which ones a server adds is worth one note per response. */
function extraFields(value: JsonValue, ex: Exchange): Finding[] {
  const extra = extraProperties('Pet', value);
  if (extra.length === 0) return [];
  const names = extra.slice(0, 10).map((n) => excerpt(n, 40)).join(', ');
  return [observation('PET-001', `Pet carries fields the spec does not list: ${names}${extra.length > 10 ? ` and ${extra.length - 10} more` : ''}`, ex.seq)];
}
