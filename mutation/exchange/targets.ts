/**
 * The targets of the exchange mutants, generated from schemas/openapi.yaml (never listed by hand):
 * every response field of every operation's responses, every header the document names, every
 * status code of every operation, every request constraint (NewPet's required fields, the type
 * matrix of its fields, its int64 range; limit's bounds; the status filter's enumeration), and
 * each operation's listing. Each target belongs to the spec sections a failure on it may come from:
 * the section of its operation (from the spec's "Operation name" lines) and that of the element
 * it is (the resource in section 2, an error in 7, a limit in 8).
 */
import { readFileSync } from 'node:fs';
import { newPetTypeMatrix, type FieldKind, type MatrixType } from '../../src/arbitraries/type-matrix.js';
import { componentSchema, openApiDocument, operations, resolvedSchema, statusValues, type JsonSchema } from '../../src/interface/openapi.js';
import { packagePath } from '../../src/interface/package-root.js';
import { specUnits } from '../../src/spec-text.js';

type Doc = Record<string, unknown>;
const isDoc = (value: unknown): value is Doc => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A field of a response body, as its schema types it. */
export interface FieldTarget {
  class: 'field';
  name: string;
  operation: string;
  status: number;
  /** The body is an array of these objects (listPets). */
  inArray: boolean;
  schema: string;
  field: string;
  kind: FieldKind;
  int64: boolean;
  required: boolean;
  sections: string[];
}

/** A whole response body of one operation and status. */
export interface BodyTarget {
  class: 'body';
  name: string;
  operation: string;
  status: number;
  inArray: boolean;
  sections: string[];
}

export interface HeaderTarget {
  class: 'header';
  name: string;
  header: string;
  /** The statuses whose responses the document gives it, and the operations. */
  statuses: number[];
  operations: string[];
  /** Integer headers carry a count or a time; Retry-After's unit is not shown. */
  kind: 'count' | 'time' | 'media-type';
  sections: string[];
}

export interface StatusTarget {
  class: 'status';
  name: string;
  operation: string;
  status: number;
  sections: string[];
}

/** One constraint a request can break, in one value class. */
export interface RequestTarget {
  class: 'request';
  name: string;
  operation: string;
  where: 'body' | 'query';
  field: string;
  /** The class of value that breaks it: a matrix type, `missing`, `int64-range`, `below-min`, `above-max`, `outside-enum`. */
  breaking: MatrixType | 'missing' | 'int64-range' | 'below-min' | 'above-max' | 'outside-enum';
  sections: string[];
}

export interface ListingTarget {
  class: 'listing';
  name: string;
  operation: string;
  sections: string[];
}

export type Target = FieldTarget | BodyTarget | HeaderTarget | StatusTarget | RequestTarget | ListingTarget;

/** operationId -> the spec section whose "Operation name" line names it. */
export function operationSections(): Map<string, string> {
  const units = specUnits(readFileSync(packagePath('spec', 'pet-store-service.md'), 'utf8'));
  const sections = new Map<string, string>();
  for (const unit of units) {
    const named = /^Operation name: `([A-Za-z]+)`/.exec(unit.text);
    if (named?.[1] !== undefined) sections.set(named[1], unit.section);
  }
  // An operation without that line (the orders listing) is its subsection's: the one whose heading names its path.
  for (const op of operations()) {
    if (sections.has(op.operationId)) continue;
    const unit = units.find((u) => u.text.includes(`${op.method} ${op.path}`));
    if (unit !== undefined) sections.set(op.operationId, unit.section);
  }
  return sections;
}

/** Where each part of the interface is defined in the spec: resources (2), errors (7), limits (8), media type (1). */
export const ELEMENT_SECTIONS = { resource: '2', media: '1', auth: '5', error: '7', limits: '8' } as const;

function ref(value: unknown): Doc {
  if (!isDoc(value)) throw new Error('openapi.yaml: not an object');
  const target = value['$ref'];
  if (typeof target !== 'string') return value;
  let node: unknown = openApiDocument();
  for (const part of target.replace(/^#\//, '').split('/')) node = isDoc(node) ? node[part] : undefined;
  return ref(node);
}

/** The component schema a response body names (Pet, Pets, Error), and whether it is an array of it. */
function bodySchema(response: Doc): { schema: string; inArray: boolean } | undefined {
  const content = response['content'];
  if (!isDoc(content)) return undefined;
  const media = content['application/json'];
  if (!isDoc(media) || !isDoc(media['schema'])) return undefined;
  const named = (value: unknown): string | undefined => (isDoc(value) && typeof value['$ref'] === 'string' ? value['$ref'].split('/').pop() : undefined);
  const top = named(media['schema']);
  if (top === undefined) return undefined;
  const resolved = ref(media['schema']);
  if (resolved['type'] === 'array') {
    const item = named(resolved['items']);
    return item === undefined ? undefined : { schema: item, inArray: true };
  }
  return { schema: top, inArray: false };
}

interface Property {
  field: string;
  kind: FieldKind;
  int64: boolean;
  required: boolean;
}

/** The properties of a component schema, following allOf and $ref, with how they are typed. */
function propertiesOf(schema: JsonSchema): Property[] {
  const found: Property[] = [];
  const required = new Set<string>();
  const visit = (s: Doc): void => {
    const resolved = ref(s);
    if (Array.isArray(resolved['required'])) resolved['required'].forEach((r) => typeof r === 'string' && required.add(r));
    if (isDoc(resolved['properties'])) {
      for (const [field, p] of Object.entries(resolved['properties'])) {
        const typed = resolvedSchema(ref(p));
        const kind: FieldKind = Array.isArray(typed['enum']) ? 'enum' : typed['type'] === 'integer' ? 'integer' : 'string';
        found.push({ field, kind, int64: typed['format'] === 'int64', required: false });
      }
    }
    if (Array.isArray(resolved['allOf'])) resolved['allOf'].forEach((part) => visit(ref(part)));
  };
  visit(schema);
  return found.map((p) => ({ ...p, required: required.has(p.field) }));
}

interface ResponseEntry {
  operation: string;
  status: number;
  response: Doc;
}

/** Every response of every operation the document shows (a `default` shows none). */
function responses(): ResponseEntry[] {
  const paths = openApiDocument()['paths'];
  if (!isDoc(paths)) throw new Error('openapi.yaml: no paths');
  return operations().flatMap((op) => {
    const item = paths[op.path];
    const operation = isDoc(item) ? item[op.method.toLowerCase()] : undefined;
    const all = isDoc(operation) && isDoc(operation['responses']) ? operation['responses'] : {};
    return Object.entries(all)
      .filter(([code]) => /^\d{3}$/.test(code))
      .map(([code, response]) => ({ operation: op.operationId, status: Number(code), response: ref(response) }));
  });
}

/** The section a status belongs to besides its operation's: 401 authentication, 429 limits, other errors 7. */
function statusSection(status: number): string {
  if (status === 401) return ELEMENT_SECTIONS.auth;
  if (status === 429) return ELEMENT_SECTIONS.limits;
  return status >= 400 ? ELEMENT_SECTIONS.error : ELEMENT_SECTIONS.resource;
}

const unique = (values: string[]): string[] => [...new Set(values)];

/**
 * Error responses are the same on every operation (components.responses): their fields are one
 * target per status, named `*.<status>`, rather than one per operation.
 */
const SHARED = '*';

/** The operation that creates pets: the document's POST. */
const creatingOperation = (): string => operations().find((op) => op.method === 'POST')?.operationId ?? 'createPet';

export function fieldAndBodyTargets(): (FieldTarget | BodyTarget)[] {
  const sectionOf = operationSections();
  const create = creatingOperation();
  const targets: (FieldTarget | BodyTarget)[] = [];
  const seen = new Set<string>();
  for (const { operation, status, response } of responses()) {
    const body = bodySchema(response);
    if (body === undefined) continue;
    const shared = body.schema === 'Error';
    const where = shared ? SHARED : operation;
    const owner = `${where}.${status}`;
    if (seen.has(owner)) continue;
    seen.add(owner);
    // A Pet a read shows is also the creation's (4.2: a created pet reads back as its 201 showed it, CREATE-002).
    const readBack = !shared && operation !== create ? [sectionOf.get(create) ?? ''] : [];
    const sections = unique([...(shared ? [] : [sectionOf.get(operation) ?? '']), shared ? ELEMENT_SECTIONS.error : ELEMENT_SECTIONS.resource, statusSection(status), ...readBack].filter((s) => s !== ''));
    targets.push({ class: 'body', name: owner, operation: where, status, inArray: body.inArray, sections });
    const schemaName = body.schema as 'Pet' | 'Error';
    for (const p of propertiesOf(componentSchema(schemaName))) {
      targets.push({ class: 'field', name: `${owner}${body.inArray ? '[]' : ''}.${p.field}`, operation: where, status, inArray: body.inArray, schema: schemaName, ...p, sections });
    }
  }
  return targets;
}

export function headerTargets(): HeaderTarget[] {
  const byHeader = new Map<string, { statuses: Set<number>; operations: Set<string> }>();
  const media = { statuses: new Set<number>(), operations: new Set<string>() };
  const note = (into: { statuses: Set<number>; operations: Set<string> }, status: number, operation: string): void => {
    into.statuses.add(status);
    into.operations.add(operation);
  };
  for (const { operation, status, response } of responses()) {
    if (isDoc(response['headers'])) {
      for (const name of Object.keys(response['headers'])) {
        const seen = byHeader.get(name) ?? { statuses: new Set<number>(), operations: new Set<string>() };
        byHeader.set(name, seen);
        note(seen, status, operation);
      }
    }
    if (bodySchema(response) !== undefined) note(media, status, operation);
  }
  const headers = isDoc(openApiDocument()['components']) ? (openApiDocument()['components'] as Doc)['headers'] : undefined;
  const targets: HeaderTarget[] = [...byHeader].map(([header, seen]) => {
    const schema = isDoc(headers) ? ref(headers[header]) : {};
    const typed = isDoc(schema['schema']) ? schema['schema'] : {};
    // An integer header holds a count, except the one documented as a timestamp; Retry-After's string is a time.
    const time = typed['type'] !== 'integer' || /timestamp/i.test(String(schema['description'] ?? ''));
    return { class: 'header', name: header, header, statuses: [...seen.statuses].sort(), operations: [...seen.operations], kind: time ? 'time' : 'count', sections: [ELEMENT_SECTIONS.limits] };
  });
  targets.push({ class: 'header', name: 'Content-Type', header: 'Content-Type', statuses: [...media.statuses].sort(), operations: [...media.operations], kind: 'media-type', sections: [ELEMENT_SECTIONS.media, ELEMENT_SECTIONS.error] });
  return targets;
}

export function statusTargets(): StatusTarget[] {
  const sectionOf = operationSections();
  return responses().map(({ operation, status }) => ({
    class: 'status',
    name: `${operation}.${status}`,
    operation,
    status,
    sections: unique([sectionOf.get(operation) ?? '', statusSection(status)].filter((s) => s !== '' && s !== ELEMENT_SECTIONS.resource)),
  }));
}

export function requestTargets(): RequestTarget[] {
  const sectionOf = operationSections();
  const create = creatingOperation();
  const createSections = unique([sectionOf.get(create) ?? '', ELEMENT_SECTIONS.resource].filter((s) => s !== ''));
  const targets: RequestTarget[] = [];
  const body = (field: string, breaking: RequestTarget['breaking']): RequestTarget => ({ class: 'request', name: `NewPet.${field}`, operation: create, where: 'body', field, breaking, sections: createSections });
  for (const p of propertiesOf(componentSchema('NewPet'))) {
    if (p.required) targets.push(body(p.field, 'missing'));
    if (p.int64) targets.push(body(p.field, 'int64-range'));
  }
  for (const member of newPetTypeMatrix()) targets.push(body(member.field, member.kind === 'enum' && member.type === 'string' ? 'outside-enum' : member.type));
  const list = operations().find((op) => op.method === 'GET' && !op.path.includes('{') && op.path === '/pets')?.operationId ?? 'listPets';
  const listSections = unique([sectionOf.get(list) ?? '', ELEMENT_SECTIONS.limits].filter((s) => s !== ''));
  const query = (field: string, breaking: RequestTarget['breaking'], sections: string[]): RequestTarget => ({ class: 'request', name: `${list}.${field}`, operation: list, where: 'query', field, breaking, sections });
  // limit's bounds and type (the operators read them with listLimits); the status filter's enumeration.
  for (const breaking of ['below-min', 'above-max', 'fraction', 'string'] as const) targets.push(query('limit', breaking, listSections));
  if (statusValues().length > 0) targets.push(query('status', 'outside-enum', [sectionOf.get(list) ?? '4.1']));
  return targets;
}

export function listingTargets(): ListingTarget[] {
  const sectionOf = operationSections();
  return fieldAndBodyTargets()
    .filter((t): t is BodyTarget => t.class === 'body' && t.inArray)
    .map((t) => ({ class: 'listing', name: t.operation, operation: t.operation, sections: unique([sectionOf.get(t.operation) ?? '', ELEMENT_SECTIONS.resource]) }));
}

/** Query parameters of an operation, from the document: what the conditions pair an operator with. */
export function queryParameters(operationId: string): string[] {
  const op = operations().find((o) => o.operationId === operationId);
  const paths = openApiDocument()['paths'];
  const item = op === undefined || !isDoc(paths) ? undefined : paths[op.path];
  const operation = isDoc(item) && op !== undefined ? item[op.method.toLowerCase()] : undefined;
  const parameters = isDoc(operation) && Array.isArray(operation['parameters']) ? operation['parameters'] : [];
  return parameters.map(ref).filter((p) => p['in'] === 'query').map((p) => String(p['name']));
}

export function allTargets(): Target[] {
  return [...fieldAndBodyTargets(), ...headerTargets(), ...statusTargets(), ...requestTargets(), ...listingTargets()];
}
