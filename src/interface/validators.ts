/**
 * Validators of the interface's component schemas (validate('Pet', value) -> messages) and of our
 * own artefacts' schemas (compileValidator). Bodies come from parseJson, where integers beyond 2^53
 * are bigints; ajv does not know bigint, so it validates a "validation view" of the value (see viewOf).
 *
 * validate() uses the standalone validators the build generates (dist/schemas/validators.mjs) when
 * they are not older than openapi.yaml: a run then never loads Ajv (schema-compiler.ts says why).
 * Otherwise (tests from sources without a build, an edited document) it compiles them with Ajv at
 * first use, with the same options and formats, so both give the same messages.
 */
import { pathToFileURL } from 'node:url';
import type { Ajv2020, ErrorObject } from 'ajv/dist/2020.js';
import { currentBuildOutput } from './documents.js';
import { TWO_63 } from './formats.js';
import { isInt64 } from './int64.js';
import type { JsonValue } from './json.js';
import { componentSchema, declaredProperties, SCHEMA_NAMES, type JsonSchema, type SchemaName } from './openapi.js';
import { componentSchemaId, GENERATED_VALIDATORS_FILE, runtimeAjv } from './schema-compiler.js';

const TWO_64 = 2 ** 64;
/** The largest double that is still ≤ 2^63−1: 2^63−1 itself rounds up to 2^63, out of range. */
const LARGEST_INT64_DOUBLE = TWO_63 - 1024;

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

/** A validation function as Ajv compiles or generates it: true when valid, else `errors` says why. */
interface ValidateFunction {
  (data: unknown): boolean;
  errors?: readonly ErrorObject[] | null;
}

type Checker = (data: unknown) => string[];

function checker(check: ValidateFunction): Checker {
  return (data) => (check(data) ? [] : messages(check.errors));
}

let sharedAjv: Ajv2020 | undefined;

/** Compiles a schema with the shared instance (created at first use); the result returns every error message, [] when valid. */
export function compileValidator(schema: JsonSchema): Checker {
  sharedAjv ??= runtimeAjv();
  return checker(sharedAjv.compile(schema));
}

/** The generated validators, when the build wrote them and openapi.yaml has not changed since. */
async function generatedValidators(): Promise<ReadonlyMap<SchemaName, Checker> | undefined> {
  const file = currentBuildOutput('openapi', GENERATED_VALIDATORS_FILE);
  if (file === undefined) return undefined;
  const module = (await import(pathToFileURL(file).href)) as Readonly<Record<string, unknown>>;
  const checkers = new Map<SchemaName, Checker>();
  for (const name of SCHEMA_NAMES) {
    const check = module[name];
    // A module from another build may lack a schema: compile them all rather than mix sources.
    if (typeof check !== 'function') return undefined;
    checkers.set(name, checker(check as ValidateFunction));
  }
  return checkers;
}

// Loaded once at import (top-level await) because validate() is synchronous.
const generated = await generatedValidators();

export type ValidatorSource = 'generated' | 'compiled';

/** What validate() uses: 'generated' after a build, 'compiled' (Ajv at first use) otherwise. */
export const componentValidatorSource: ValidatorSource = generated === undefined ? 'compiled' : 'generated';

const compiled = new Map<SchemaName, Checker>();

function componentValidator(source: ValidatorSource, name: SchemaName): Checker {
  if (source === 'generated') {
    const check = generated?.get(name);
    if (check === undefined) throw new Error('No current generated validators (dist/schemas/validators.mjs): run npm run build');
    return check;
  }
  let check = compiled.get(name);
  if (check === undefined) {
    check = compileValidator({ $ref: componentSchemaId(name) });
    compiled.set(name, check);
  }
  return check;
}

/** validate() with the validators of the given source; the tests compare the generated and the compiled ones. */
export function validateWith(source: ValidatorSource, name: SchemaName, value: JsonValue): string[] {
  return componentValidator(source, name)(viewOf(value));
}

/** Every way the value breaks the named component schema, e.g. "/0/id must be integer"; [] when valid. */
export function validate(name: SchemaName, value: JsonValue): string[] {
  return validateWith(componentValidatorSource, name, value);
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
