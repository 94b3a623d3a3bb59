/**
 * The operators of the exchange layer, one family per target class (issue 45's lists). Each
 * builds a fresh Mutation for one run: the ones that remember (a frozen header, a window's first
 * Reset, the pets a run created) keep that in the closure, so runs never share state.
 */
import { STATUS_CODES } from 'node:http';
import { newPetTypeMatrix, type FieldKind, type MatrixType } from '../../src/arbitraries/type-matrix.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../src/interface/json.js';
import { listLimits, statusValues } from '../../src/interface/openapi.js';
import { INT64_MAX, INT64_MIN } from '../../fixtures/reference-server/index.js';
import { WHOLE_SECONDS_MS } from '../../src/rate-limit/tolerances.js';
import { headerOf, jsonBodyOf, withBody, withHeader, withJsonBody, withoutHeader, type ExchangeInfo, type Mutation, type WireRequest, type WireResponse } from './layer.js';
import type { BodyTarget, FieldTarget, HeaderTarget, ListingTarget, RequestTarget, StatusTarget } from './targets.js';

/** A condition on an exchange; `response` is undefined on the request side. */
export type Condition = (request: WireRequest, info: ExchangeInfo, response: WireResponse | undefined) => boolean;

export const ALWAYS: Condition = () => true;

const statusClassOf = (status: number): string => (status === 429 ? '429' : `${Math.floor(status / 100)}xx`);

/** Whether a response of this status falls in the class a condition names (429 is also a 4xx). */
export const inClass = (status: number, cls: string): boolean => statusClassOf(status) === cls || (cls === '4xx' && Math.floor(status / 100) === 4);

const integerHeader = (response: WireResponse, name: string): number | undefined => {
  const value = headerOf(response.headers, name);
  return value !== undefined && /^-?\d+$/.test(value.trim()) ? Number(value) : undefined;
};

const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** Marks responses as in the first window (the first X-RateLimit-Reset a keyed response announced) or a later one. */
export function windowTracker(): (response: WireResponse) => 'first' | 'later' | undefined {
  let first: number | undefined;
  return (response) => {
    const reset = integerHeader(response, 'X-RateLimit-Reset');
    if (reset === undefined) return undefined;
    first ??= reset;
    return reset > first ? 'later' : 'first';
  };
}

// ---------------------------------------------------------------- response bodies

const matchesBody = (target: { operation: string; status: number }, info: ExchangeInfo, response: WireResponse): boolean =>
  response.status === target.status && (target.operation === '*' || target.operation === info.operation);

/** The response with `edit` applied to each object the target's body holds (the array's items, or the body). */
function editObjects(response: WireResponse, inArray: boolean, edit: (object: JsonObject, at: number) => boolean): WireResponse | undefined {
  const body = jsonBodyOf(response);
  if (body === undefined) return undefined;
  const objects = inArray ? (Array.isArray(body) ? body.filter(isJsonObject) : []) : isJsonObject(body) ? [body] : [];
  let changed = false;
  objects.forEach((object, at) => {
    if (edit(object, at)) changed = true;
  });
  return changed ? withJsonBody(response, body) : undefined;
}

/** One member of each JSON type the matrix forbids for a field of this kind (the falsy edge; outside the enumeration, a plain word). */
export function forbiddenMembers(kind: FieldKind): { type: MatrixType; value: JsonValue }[] {
  const sample = newPetTypeMatrix().filter((m) => m.kind === kind && m.type !== 'null');
  return sample.map((m) => ({ type: m.type, value: (kind === 'enum' && m.type === 'string' ? m.edges[m.edges.length - 1] : m.edges[0]) ?? null }));
}

const TWO_53 = 2n ** 53n;

export type FieldOperator = 'remove' | 'null' | `retype-${MatrixType}` | 'stringify' | 'round-int64';

export function fieldOperators(target: FieldTarget): FieldOperator[] {
  const ops: FieldOperator[] = ['remove', 'null', ...forbiddenMembers(target.kind).map((m): FieldOperator => `retype-${m.type}`)];
  if (target.kind === 'integer') ops.push('stringify');
  if (target.int64) ops.push('round-int64');
  return ops;
}

function fieldEdit(target: FieldTarget, operator: FieldOperator): (object: JsonObject) => boolean {
  const has = (o: JsonObject): boolean => Object.hasOwn(o, target.field);
  switch (operator) {
    case 'remove':
      return (o) => has(o) && delete o[target.field];
    case 'null':
      return (o) => has(o) && ((o[target.field] = null), true);
    case 'stringify':
      return (o) => {
        const v = o[target.field];
        if (typeof v !== 'number' && typeof v !== 'bigint') return false;
        o[target.field] = String(v);
        return true;
      };
    case 'round-int64':
      return (o) => {
        const v = o[target.field];
        if (typeof v !== 'bigint' || (v < TWO_53 && v > -TWO_53)) return false;
        const rounded = BigInt(Number(v));
        if (rounded === v) return false;
        o[target.field] = rounded;
        return true;
      };
    default: {
      const type = operator.slice('retype-'.length);
      const member = forbiddenMembers(target.kind).find((m) => m.type === type);
      return (o) => has(o) && member !== undefined && ((o[target.field] = structuredClone(member.value)), true);
    }
  }
}

export function fieldMutation(target: FieldTarget, operator: FieldOperator, when: Condition): Mutation {
  const edit = fieldEdit(target, operator);
  return {
    response: (response, request, info) => (matchesBody(target, info, response) && when(request, info, response) ? editObjects(response, target.inArray, edit) : undefined),
  };
}

export type BodyOperator = 'envelope' | 'add-field';
export const BODY_OPERATORS: readonly BodyOperator[] = ['envelope', 'add-field'];

export function bodyMutation(target: BodyTarget, operator: BodyOperator, when: Condition): Mutation {
  return {
    response: (response, request, info) => {
      if (!matchesBody(target, info, response) || !when(request, info, response)) return undefined;
      const body = jsonBodyOf(response);
      if (body === undefined) return undefined;
      if (operator === 'envelope') return withJsonBody(response, { data: body });
      return editObjects(response, target.inArray, (o) => ((o['extraField'] = 'added by the exchange layer'), true));
    },
  };
}

// ---------------------------------------------------------------- headers

export type HeaderOperator = 'remove' | 'freeze' | 'stale' | 'shift+k' | 'shift-k' | 'unit-ms' | 'unit-relative' | 'unit-absolute' | 'text-plain' | 'charset';

export function headerOperators(target: HeaderTarget): HeaderOperator[] {
  if (target.kind === 'media-type') return ['remove', 'text-plain', 'charset'];
  const common: HeaderOperator[] = ['remove', 'freeze', 'stale', 'shift+k', 'shift-k'];
  if (target.kind === 'count') return common;
  // A Reset is a Unix time (relative seconds is the unit confused); Retry-After's delta-seconds may be confused with a Unix time.
  return [...common, 'unit-ms', target.header === 'Retry-After' ? 'unit-absolute' : 'unit-relative'];
}

/**
 * How far a shift moves a header: one request for a count, this many seconds for a time. Beyond
 * what whole-second Resets may be off by (WHOLE_SECONDS_MS), the second a whole-second Date loses,
 * and the second a retry sent after Retry-After may come late, with a second to spare for a busy
 * machine: a shifted time is then a fault at every window phase, not only where a window ends.
 */
export const SHIFT_SECONDS = WHOLE_SECONDS_MS / 1000 + 3;

function shifted(value: string, by: number): string | undefined {
  if (!/^\d+$/.test(value.trim())) return undefined;
  return String(Math.max(0, Number(value) + by));
}

export function headerMutation(target: HeaderTarget, operator: HeaderOperator, when: Condition): Mutation {
  const windowOf = windowTracker();
  let frozen: string | undefined;
  let lastOfFirstWindow: string | undefined;
  const k = target.kind === 'count' ? 1 : SHIFT_SECONDS;
  const rewrite = (value: string, response: WireResponse): string | undefined => {
    switch (operator) {
      case 'freeze':
        frozen ??= value;
        return frozen;
      case 'stale': {
        const window = windowOf(response);
        if (window !== 'later') {
          lastOfFirstWindow = value;
          return undefined;
        }
        return lastOfFirstWindow;
      }
      case 'shift+k':
        return shifted(value, k);
      case 'shift-k':
        return shifted(value, -k);
      case 'unit-ms':
        return shifted(value, 0) === undefined ? undefined : String(Number(value) * 1000);
      case 'unit-relative':
        return shifted(value, 0) === undefined ? undefined : String(Math.max(0, Number(value) - nowSeconds()));
      case 'unit-absolute':
        return shifted(value, 0) === undefined ? undefined : String(nowSeconds() + Number(value));
      case 'text-plain':
        return 'text/plain';
      case 'charset':
        return `${value.split(';')[0]?.trim() ?? value}; charset=utf-8`;
      default:
        return undefined;
    }
  };
  return {
    response: (response, request, info) => {
      // The condition sees every response, carrying the header or not: the window condition learns
      // the first window from all of them, not from the first that carries a Retry-After.
      const holds = when(request, info, response);
      const value = headerOf(response.headers, target.header);
      // The stale operator follows every response's window, whether or not the condition holds.
      if (value === undefined || !holds) {
        if (operator === 'stale') windowOf(response);
        return undefined;
      }
      if (operator === 'remove') return { ...response, headers: withoutHeader(response.headers, target.header) };
      const next = rewrite(value, response);
      return next === undefined || next === value ? undefined : { ...response, headers: withHeader(response.headers, target.header, next) };
    },
  };
}

// ---------------------------------------------------------------- status codes

/** Each status the document names, and the neighbours a faulty server answers instead. */
export const STATUS_NEIGHBOURS: Readonly<Record<number, readonly number[]>> = {
  200: [201, 203],
  201: [200, 202],
  400: [422, 409],
  401: [403, 400],
  404: [400, 410],
  429: [503, 403],
};

const withStatus = (response: WireResponse, status: number): WireResponse => ({ ...response, status, statusMessage: STATUS_CODES[status] ?? '' });

export function statusMutation(target: StatusTarget, replacement: number, when: Condition): Mutation {
  return {
    response: (response, request, info) =>
      response.status === target.status && info.operation === target.operation && when(request, info, response) ? withStatus(response, replacement) : undefined,
  };
}

// ---------------------------------------------------------------- requests

const DEFAULTS: Readonly<Record<FieldKind, JsonValue | undefined>> = { string: 'unnamed', integer: 1n, enum: undefined };

const jsonTypeOf = (value: JsonValue): MatrixType => {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'bigint') return 'number';
  if (typeof value === 'number') return Number.isInteger(value) ? 'number' : 'fraction';
  return typeof value as 'string' | 'boolean' | 'object';
};

function kindOfNewPetField(field: string): FieldKind | undefined {
  return newPetTypeMatrix().find((m) => m.field === field)?.kind;
}

/** Whether `value` breaks the field's constraint in the target's class. */
function breaksIn(target: RequestTarget, value: JsonValue, kind: FieldKind): boolean {
  const type = jsonTypeOf(value);
  switch (target.breaking) {
    case 'int64-range':
      return typeof value === 'bigint' && (value > INT64_MAX || value < INT64_MIN);
    case 'outside-enum':
      return typeof value === 'string' && !statusValues().includes(value);
    case 'fraction':
      return kind === 'integer' ? type === 'fraction' : false;
    case 'number':
      // A string field's numbers (integers and fractions alike); an enumeration's.
      return type === 'number' || type === 'fraction';
    case 'string':
      return type === 'string';
    default:
      return type === target.breaking;
  }
}

/** The value a lenient server makes of a breaking one: coerced, clamped or defaulted (undefined: the field dropped). */
function repaired(target: RequestTarget, value: JsonValue, kind: FieldKind): JsonValue | undefined {
  if (target.breaking === 'int64-range' && typeof value === 'bigint') return value > INT64_MAX ? INT64_MAX : INT64_MIN;
  if (kind === 'enum') return undefined;
  if (kind === 'string') return typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean' ? String(value) : DEFAULTS.string;
  if (typeof value === 'number') return BigInt(Math.trunc(value));
  if (typeof value === 'string' && /^\s*-?\d+\s*$/.test(value)) return BigInt(value.trim());
  if (typeof value === 'boolean') return value ? 1n : 0n;
  return DEFAULTS.integer;
}

function repairBody(target: RequestTarget, request: WireRequest): WireRequest | undefined {
  const kind = kindOfNewPetField(target.field);
  const body = jsonBodyOf(request);
  if (kind === undefined || !isJsonObject(body)) return undefined;
  const present = Object.hasOwn(body, target.field);
  if (target.breaking === 'missing') {
    if (present) return undefined;
    const value = DEFAULTS[kind];
    if (value === undefined) return undefined;
    return withJsonBody(request, { ...body, [target.field]: value });
  }
  const value = body[target.field];
  if (!present || value === undefined || !breaksIn(target, value, kind)) return undefined;
  const next = repaired(target, value, kind);
  const copy: JsonObject = { ...body };
  if (next === undefined) delete copy[target.field];
  else copy[target.field] = next;
  return withJsonBody(request, copy);
}

function repairQuery(target: RequestTarget, request: WireRequest, info: ExchangeInfo): WireRequest | undefined {
  const raw = info.query.get(target.field);
  if (raw === null) return undefined;
  const query = new URLSearchParams(info.query);
  const bounds = listLimits();
  const numeric = /^\s*-?\d+(\.\d+)?\s*$/.test(raw) ? Number(raw) : undefined;
  switch (target.breaking) {
    case 'below-min':
      if (numeric === undefined || !Number.isInteger(numeric) || numeric >= bounds.min) return undefined;
      query.set(target.field, String(bounds.min));
      break;
    case 'above-max':
      if (numeric === undefined || !Number.isInteger(numeric) || numeric <= bounds.max) return undefined;
      query.set(target.field, String(bounds.max));
      break;
    case 'fraction':
      if (numeric === undefined || Number.isInteger(numeric)) return undefined;
      query.set(target.field, String(Math.max(bounds.min, Math.trunc(numeric))));
      break;
    case 'string':
      if (numeric !== undefined) return undefined;
      query.delete(target.field);
      break;
    case 'outside-enum':
      if (statusValues().includes(raw)) return undefined;
      query.delete(target.field);
      break;
    default:
      return undefined;
  }
  const rest = query.toString();
  const path = request.target.split('?')[0] ?? request.target;
  return { ...request, target: rest === '' ? path : `${path}?${rest}` };
}

/** A lenient validator: a request breaking the target's constraint in its class is repaired and forwarded. */
export function requestMutation(target: RequestTarget, when: Condition): Mutation {
  return {
    request: (request, info) => {
      if (info.operation !== target.operation || !when(request, info, undefined)) return undefined;
      return target.where === 'body' ? repairBody(target, request) : repairQuery(target, request, info);
    },
  };
}

// ---------------------------------------------------------------- listings

export type ListingOperator = 'truncate' | 'exceed-limit' | 'drop-oldest' | 'drop-newest' | 'duplicate-item' | `break-encoding-${number}`;

/** Positions whose item's encoding is broken: the first, and the first one past the default page. */
export const BREAK_POSITIONS = (): number[] => [0, listLimits().default];
export const LISTING_OPERATORS = (): ListingOperator[] => ['truncate', 'exceed-limit', 'drop-oldest', 'drop-newest', 'duplicate-item', ...BREAK_POSITIONS().map((k): ListingOperator => `break-encoding-${k}`)];

const idOf = (item: JsonValue): bigint | undefined => {
  const id = isJsonObject(item) ? item['id'] : undefined;
  return typeof id === 'number' ? BigInt(id) : typeof id === 'bigint' ? id : undefined;
};

/** A name that is not UTF-8 once on the wire: the JSON text is written, then this marker's bytes replaced. */
const BROKEN_MARKER = 'pc-exchange-layer-broken-bytes';

function listingEdit(operator: ListingOperator, items: JsonValue[], info: ExchangeInfo): JsonValue[] | undefined {
  const ids = items.map(idOf).filter((id): id is bigint => id !== undefined);
  const extreme = (pick: (a: bigint, b: bigint) => boolean): bigint | undefined => ids.reduce<bigint | undefined>((best, id) => (best === undefined || pick(id, best) ? id : best), undefined);
  switch (operator) {
    case 'truncate':
      return items.length >= 2 ? items.slice(0, -1) : undefined;
    case 'exceed-limit': {
      const limit = Number(info.query.get('limit') ?? listLimits().default);
      const max = extreme((a, b) => a > b);
      const first = items[0];
      if (items.length !== limit || !isJsonObject(first) || max === undefined) return undefined;
      return [...items, { ...first, id: max + 1n }];
    }
    case 'drop-oldest':
    case 'drop-newest': {
      const id = operator === 'drop-oldest' ? extreme((a, b) => a < b) : extreme((a, b) => a > b);
      return id === undefined ? undefined : items.filter((item) => idOf(item) !== id);
    }
    case 'duplicate-item':
      return items.length === 0 ? undefined : [...items, structuredClone(items[0] ?? null)];
    default: {
      const k = Number(operator.slice('break-encoding-'.length));
      const item = items[k];
      if (!isJsonObject(item)) return undefined;
      return items.map((it, i) => (i === k ? { ...item, name: BROKEN_MARKER } : it));
    }
  }
}

/** The listing's body with the broken item's marker as bytes that are not UTF-8 (an overlong encoding of "/"). */
function withBrokenBytes(response: WireResponse): WireResponse {
  const text = response.body.toString('utf8');
  const at = text.indexOf(BROKEN_MARKER);
  if (at < 0) return response;
  const before = Buffer.from(text.slice(0, at), 'utf8');
  const after = Buffer.from(text.slice(at + BROKEN_MARKER.length), 'utf8');
  return withBody(response, Buffer.concat([before, Buffer.from([0x52, 0x65, 0x78, 0xc0, 0xaf]), after]));
}

export function listingMutation(target: ListingTarget, operator: ListingOperator, when: Condition): Mutation {
  return {
    response: (response, request, info) => {
      if (info.operation !== target.operation || response.status !== 200 || !when(request, info, response)) return undefined;
      const body = jsonBodyOf(response);
      if (!Array.isArray(body)) return undefined;
      const next = listingEdit(operator, body, info);
      if (next === undefined) return undefined;
      const rewritten = withJsonBody(response, next);
      return operator.startsWith('break-encoding-') ? withBrokenBytes(rewritten) : rewritten;
    },
  };
}

/** The filter ignored for one of its values: the request forwarded without it. */
export function ignoreFilterMutation(target: ListingTarget, value: string, when: Condition): Mutation {
  return {
    request: (request, info) => {
      if (info.operation !== target.operation || info.query.get('status') !== value || !when(request, info, undefined)) return undefined;
      const query = new URLSearchParams(info.query);
      query.delete('status');
      const path = request.target.split('?')[0] ?? request.target;
      return { ...request, target: query.size === 0 ? path : `${path}?${query.toString()}` };
    },
  };
}

// ---------------------------------------------------------------- limiter shapes

export type LimiterOperator = 'cap-minus-one' | 'cap-plus-one' | 'period-half' | 'period-double' | 'remaining-stuck-2xx' | 'remaining-stuck-4xx' | 'remaining-stuck-429' | 'counted-twice';
export const LIMITER_OPERATORS: readonly LimiterOperator[] = ['cap-minus-one', 'cap-plus-one', 'period-half', 'period-double', 'remaining-stuck-2xx', 'remaining-stuck-4xx', 'remaining-stuck-429', 'counted-twice'];

/** A 429 the layer answers in the server's place: its headers, an Error body, Retry-After to the Reset. */
function refused(response: WireResponse, remaining: number): WireResponse {
  const reset = integerHeader(response, 'X-RateLimit-Reset') ?? nowSeconds() + 1;
  let headers = withHeader(response.headers, 'X-RateLimit-Remaining', String(remaining));
  headers = withHeader(headers, 'Retry-After', String(Math.max(1, reset - nowSeconds())));
  headers = withHeader(headers, 'Content-Type', 'application/json');
  return withJsonBody({ ...withStatus(response, 429), headers }, { code: 'rate_limited', message: 'Too many requests', status: 429 });
}

export function limiterMutation(operator: LimiterOperator): Mutation {
  let credit = 0;
  let creditReset: number | undefined;
  return {
    response: (response) => {
      const limit = integerHeader(response, 'X-RateLimit-Limit');
      const remaining = integerHeader(response, 'X-RateLimit-Remaining');
      const reset = integerHeader(response, 'X-RateLimit-Reset');
      if (limit === undefined || remaining === undefined || reset === undefined) return undefined;
      const set = (name: string, value: number): WireResponse => ({ ...response, headers: withHeader(response.headers, name, String(value)) });
      switch (operator) {
        case 'cap-minus-one':
          return remaining === 0 && response.status < 300 ? refused(response, 0) : undefined;
        case 'cap-plus-one':
          return { ...set('X-RateLimit-Limit', limit - 1), headers: withHeader(set('X-RateLimit-Limit', limit - 1).headers, 'X-RateLimit-Remaining', String(Math.max(0, remaining - 1))) };
        case 'period-half':
        case 'period-double': {
          const left = reset - nowSeconds();
          const announced = operator === 'period-half' ? nowSeconds() + left * 2 : nowSeconds() + Math.ceil(left / 2);
          return announced === reset ? undefined : set('X-RateLimit-Reset', announced);
        }
        case 'counted-twice': {
          const used = limit - remaining;
          if (2 * used > limit && response.status < 300) return refused(response, 0);
          return set('X-RateLimit-Remaining', Math.max(0, limit - 2 * used));
        }
        default: {
          const cls = operator.slice('remaining-stuck-'.length);
          if (reset !== creditReset) {
            creditReset = reset;
            credit = 0;
          }
          if (inClass(response.status, cls) && !(cls === '4xx' && response.status === 429)) credit += 1;
          return credit === 0 ? undefined : set('X-RateLimit-Remaining', Math.min(limit, remaining + credit));
        }
      }
    },
  };
}

// ---------------------------------------------------------------- state

export type StateOperator = 'lost-write-on-overlap' | 'changed-after-creation' | 'listing-lag' | 'id-reused';
export const STATE_OPERATORS: readonly StateOperator[] = ['lost-write-on-overlap', 'changed-after-creation', 'listing-lag', 'id-reused'];

/** How long the listing-lag operator keeps a new pet out of listings. */
export const LISTING_LAG_MS = 1_000;

const notFound = (response: WireResponse): WireResponse =>
  withJsonBody({ ...withStatus(response, 404), headers: withHeader(response.headers, 'Content-Type', 'application/json') }, { code: 'not_found', message: 'Pet not found', status: 404 });

export function stateMutation(operator: StateOperator): Mutation {
  const lost = new Set<bigint>();
  const created = new Map<bigint, number>();
  let firstId: bigint | undefined;
  const editPets = (response: WireResponse, edit: (pet: JsonObject) => boolean): WireResponse | undefined => editObjects(response, Array.isArray(jsonBodyOf(response)), edit);
  return {
    response: (response, _request, info) => {
      const body = jsonBodyOf(response);
      if (info.operation === 'createPet' && response.status === 201 && isJsonObject(body)) {
        const id = idOf(body);
        if (id === undefined) return undefined;
        created.set(id, Date.now());
        if (operator === 'lost-write-on-overlap' && info.overlapping > 0) lost.add(id);
        if (operator === 'id-reused') {
          if (firstId === undefined) firstId = id;
          else return withJsonBody(response, { ...body, id: firstId });
        }
        return undefined;
      }
      if (response.status !== 200) return undefined;
      const shown = (pet: JsonObject): bigint | undefined => idOf(pet);
      switch (operator) {
        case 'lost-write-on-overlap':
          if (info.operation === 'getPet' && isJsonObject(body) && lost.has(shown(body) ?? -1n)) return notFound(response);
          if (info.operation === 'listPets' && Array.isArray(body)) {
            const kept = body.filter((pet) => !lost.has(idOf(pet) ?? -1n));
            return kept.length === body.length ? undefined : withJsonBody(response, kept);
          }
          return undefined;
        case 'changed-after-creation':
          return editPets(response, (pet) => {
            const id = shown(pet);
            if (id === undefined || !created.has(id) || typeof pet['name'] !== 'string') return false;
            pet['name'] = `${pet['name']} (changed)`;
            return true;
          });
        case 'listing-lag':
          if (info.operation !== 'listPets' || !Array.isArray(body)) return undefined;
          {
            const kept = body.filter((pet) => Date.now() - (created.get(idOf(pet) ?? -1n) ?? 0) >= LISTING_LAG_MS);
            return kept.length === body.length ? undefined : withJsonBody(response, kept);
          }
        default:
          return undefined;
      }
    },
  };
}
