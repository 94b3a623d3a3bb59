/**
 * The one Ajv instance (JSON Schema 2020-12, strict, all errors) and the validators of the
 * interface's component schemas. Bodies come from parseJson, where integers beyond 2^53 are
 * bigints; ajv does not know bigint, so it validates a "validation view" of the value (see viewOf).
 */
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { isInt64 } from './int64.js';
import type { JsonValue } from './json.js';
import { COMPONENT_SCHEMA_REF, componentSchema, componentSchemas, declaredProperties, type JsonSchema, type SchemaName } from './openapi.js';

// ajv-formats is CommonJS: under NodeNext its default export arrives as the module object.
const addFormats = addFormatsModule.default;

/** Base URI under which the document's components are registered, so `#/components/schemas/X` refs resolve. */
const DOCUMENT_ID = 'https://petstore-conformance.invalid/schemas/openapi.yaml';

const TWO_63 = 2 ** 63;
const TWO_64 = 2 ** 64;
/** The largest double that is still ≤ 2^63−1: 2^63−1 itself rounds up to 2^63, out of range. */
const LARGEST_INT64_DOUBLE = TWO_63 - 1024;

export const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats(ajv);
// ajv-formats accepts any integer as int64/int32 (a double cannot tell); our view makes the range checkable.
ajv.addFormat('int64', { type: 'number', validate: (x: number) => Number.isInteger(x) && x >= -TWO_63 && x < TWO_63 });
ajv.addFormat('int32', { type: 'number', validate: (x: number) => Number.isInteger(x) && x >= -(2 ** 31) && x < 2 ** 31 });
// The document's components live under a keyword JSON Schema does not know; declaring it keeps strict mode on.
ajv.addKeyword({ keyword: 'components', schemaType: 'object' });
ajv.addSchema({ $id: DOCUMENT_ID, components: { schemas: componentSchemas() } });

/**
 * A bigint becomes a double on the same side of the int64 bounds: in range → the nearest in-range
 * double (9223372036854775807n would otherwise round to 2^63 and look out of range); out of range →
 * a finite double beyond ±2^64 (-(2^63)-1 would otherwise round to -2^63 and look in range).
 */
function bigintView(value: bigint): number {
  const rounded = Number(value);
  if (isInt64(value)) return Math.min(rounded, LARGEST_INT64_DOUBLE);
  if (Number.isFinite(rounded) && Math.abs(rounded) >= TWO_64) return rounded;
  return value > 0n ? TWO_64 : -TWO_64;
}

/** What ajv validates in place of a parsed JSON value: same structure, bigints mapped by bigintView. */
export function viewOf(value: JsonValue): unknown {
  if (typeof value === 'bigint') return bigintView(value);
  // 1e400 parses to Infinity; as the largest double it stays an integer, and out of every range.
  if (typeof value === 'number' && !Number.isFinite(value)) return Math.sign(value) * Number.MAX_VALUE;
  if (Array.isArray(value)) return value.map(viewOf);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, viewOf(v)]));
  }
  return value;
}

function describe(error: ErrorObject): string {
  const where = error.instancePath === '' ? '(root)' : error.instancePath;
  const params: Record<string, unknown> = error.params;
  if (error.keyword === 'enum' && Array.isArray(params['allowedValues'])) {
    return `${where} must be one of ${params['allowedValues'].map((v) => JSON.stringify(v)).join(', ')}`;
  }
  if (error.keyword === 'format' && (params['format'] === 'int64' || params['format'] === 'int32')) {
    const bits = params['format'] === 'int64' ? 63 : 31;
    return `${where} must be an integer in the ${String(params['format'])} range (-2^${bits} to 2^${bits}-1)`;
  }
  return `${where} ${error.message ?? `fails ${error.keyword}`}`;
}

/**
 * Readable, de-duplicated messages: allOf branches report the same type error twice, and with
 * allErrors a non-integer id also fails int64, which adds nothing to "must be integer".
 */
function messages(errors: readonly ErrorObject[] | null | undefined): string[] {
  const all = errors ?? [];
  const mistyped = new Set(all.filter((e) => e.keyword === 'type').map((e) => e.instancePath));
  const relevant = all.filter((e) => !(e.keyword === 'format' && mistyped.has(e.instancePath)));
  return [...new Set(relevant.map(describe))];
}

/** Compiles a schema with the shared instance; the result returns every error message, [] when valid. */
export function compileValidator(schema: JsonSchema): (data: unknown) => string[] {
  const check = ajv.compile(schema);
  return (data) => (check(data) ? [] : messages(check.errors));
}

const componentValidators = new Map<SchemaName, (data: unknown) => string[]>();

function componentValidator(name: SchemaName): (data: unknown) => string[] {
  let v = componentValidators.get(name);
  if (v === undefined) {
    v = compileValidator({ $ref: `${DOCUMENT_ID}${COMPONENT_SCHEMA_REF}${name}` });
    componentValidators.set(name, v);
  }
  return v;
}

/** Every way the value breaks the named component schema, e.g. "/0/id must be integer"; [] when valid. */
export function validate(name: SchemaName, value: JsonValue): string[] {
  return componentValidator(name)(viewOf(value));
}

/**
 * Property names the value carries beyond those the schema declares (the spec does not forbid them;
 * checks record them as observations). For Pets, the union over its items.
 */
export function extraProperties(name: SchemaName, value: JsonValue): string[] {
  const declared = declaredProperties(componentSchema(name));
  const objects = Array.isArray(value) ? value : [value];
  const extra = new Set<string>();
  for (const item of objects) {
    if (typeof item !== 'object' || item === null || Array.isArray(item) || typeof item === 'bigint') continue;
    for (const key of Object.keys(item)) if (!declared.has(key)) extra.add(key);
  }
  return [...extra];
}
