/**
 * The interface description (schemas/openapi.yaml), loaded once. Bounds, enumerations and required
 * fields are read from the document so that the validators, the arbitraries and the suites cannot
 * drift from it; a document that lacks what we read fails loudly at first use.
 */
import { readYamlDocument } from './documents.js';

export const SCHEMA_NAMES = ['NewPet', 'Pet', 'Pets', 'PetStatus', 'Error'] as const;
export type SchemaName = (typeof SCHEMA_NAMES)[number];

/** A JSON Schema object as written in the document (2020-12 dialect). */
export type JsonSchema = { readonly [keyword: string]: unknown };

/** Values of the PetStatus enumeration; the set itself comes from the document. */
export type PetStatus = string;

export const COMPONENT_SCHEMA_REF = '#/components/schemas/';

export interface LimitBounds {
  min: number;
  max: number;
  default: number;
}

export interface OperationInfo {
  operationId: string;
  method: string;
  /** Path relative to the base address, as written in the document ("/pets/{petId}"). */
  path: string;
  deprecated: boolean;
}

type Record_ = Record<string, unknown>;

function isRecord(value: unknown): value is Record_ {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function record(value: unknown, where: string): Record_ {
  if (!isRecord(value)) throw new Error(`openapi.yaml: ${where} is not an object`);
  return value;
}

function integer(value: unknown, where: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) throw new Error(`openapi.yaml: ${where} is not an integer`);
  return value;
}

function text(value: unknown, where: string): string {
  if (typeof value !== 'string') throw new Error(`openapi.yaml: ${where} is not a string`);
  return value;
}

function strings(value: unknown, where: string): string[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
    throw new Error(`openapi.yaml: ${where} is not a list of strings`);
  }
  return value;
}

let cachedDocument: Record_ | undefined;

/** The parsed document. Callers must not mutate it. */
export function openApiDocument(): Readonly<Record_> {
  cachedDocument ??= record(readYamlDocument('openapi'), 'the document');
  return cachedDocument;
}

/** info.version: the interface description version the suite targets. */
export function specVersion(): string {
  return text(record(openApiDocument()['info'], 'info')['version'], 'info.version');
}

function schemasSection(): Record_ {
  const components = record(openApiDocument()['components'], 'components');
  return record(components['schemas'], 'components.schemas');
}

export function componentSchema(name: SchemaName): JsonSchema {
  return record(schemasSection()[name], `components.schemas.${name}`);
}

export function componentSchemas(): Readonly<Record<SchemaName, JsonSchema>> {
  return Object.fromEntries(SCHEMA_NAMES.map((name) => [name, componentSchema(name)])) as Record<SchemaName, JsonSchema>;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

export function operations(): readonly OperationInfo[] {
  const paths = record(openApiDocument()['paths'], 'paths');
  return Object.entries(paths).flatMap(([path, item]) =>
    Object.entries(record(item, `paths.${path}`))
      .filter(([method]) => HTTP_METHODS.includes(method))
      .map(([method, op]) => {
        const operation = record(op, `paths.${path}.${method}`);
        return {
          operationId: text(operation['operationId'], `paths.${path}.${method}.operationId`),
          method: method.toUpperCase(),
          path,
          deprecated: operation['deprecated'] === true,
        };
      }),
  );
}

function operationObject(operationId: string): Record_ {
  const info = operations().find((op) => op.operationId === operationId);
  if (info === undefined) throw new Error(`openapi.yaml: no operation ${operationId}`);
  const paths = record(openApiDocument()['paths'], 'paths');
  return record(record(paths[info.path], info.path)[info.method.toLowerCase()], operationId);
}

function queryParameterSchema(operationId: string, name: string): Record_ {
  const parameters = operationObject(operationId)['parameters'];
  const where = `${operationId} parameter ${name}`;
  if (!Array.isArray(parameters)) throw new Error(`openapi.yaml: ${operationId} has no parameters`);
  const parameter = parameters.filter(isRecord).find((p) => p['name'] === name && p['in'] === 'query');
  if (parameter === undefined) throw new Error(`openapi.yaml: no ${where}`);
  return record(parameter['schema'], `${where} schema`);
}

/** Bounds and default of listPets' limit query parameter. */
export function listLimits(): LimitBounds {
  const schema = queryParameterSchema('listPets', 'limit');
  const where = 'listPets limit';
  return {
    min: integer(schema['minimum'], `${where} minimum`),
    max: integer(schema['maximum'], `${where} maximum`),
    default: integer(schema['default'], `${where} default`),
  };
}

/** The PetStatus enumeration, in document order. */
export function statusValues(): readonly PetStatus[] {
  return strings(componentSchema('PetStatus')['enum'], 'PetStatus.enum');
}

/** Required fields of NewPet (name, categoryId). */
export function newPetRequired(): readonly string[] {
  return strings(componentSchema('NewPet')['required'], 'NewPet.required');
}

/** The schema itself, or the component schema its $ref names. */
export function resolvedSchema(schema: JsonSchema): JsonSchema {
  return schema['$ref'] === undefined ? schema : referencedSchema(schema['$ref']);
}

function referencedSchema(ref: unknown): JsonSchema {
  const target = text(ref, '$ref');
  if (!target.startsWith(COMPONENT_SCHEMA_REF)) throw new Error(`openapi.yaml: unsupported $ref ${target}`);
  const name = target.slice(COMPONENT_SCHEMA_REF.length);
  return record(schemasSection()[name], target);
}

/**
 * Property names an object matching the schema may carry by declaration, following $ref and allOf
 * (Pet's own id plus NewPet's fields). For an array schema, those of its items.
 */
export function declaredProperties(schema: JsonSchema): ReadonlySet<string> {
  const names = new Set<string>();
  const visit = (s: JsonSchema): void => {
    if (s['$ref'] !== undefined) visit(referencedSchema(s['$ref']));
    if (isRecord(s['properties'])) Object.keys(s['properties']).forEach((n) => names.add(n));
    if (Array.isArray(s['allOf'])) s['allOf'].filter(isRecord).forEach(visit);
    if (isRecord(s['items'])) visit(s['items']);
  };
  visit(schema);
  return names;
}
