/**
 * The JSON type matrix of NewPet's fields, derived from the schema: for each field, the JSON
 * types it forbids, and which members of each forbidden type every run sends (the edges) and which
 * only the seed draws. The edges are the members a lenient server is known to let through:
 * - the falsy member of every forbidden type (0, "", false, null, [], {}): JavaScript's `||` and
 *   `!x`, Python's `or` and `not x`, PHP's empty() read them as absent, so a default or a
 *   presence check takes them for a value never sent ({} and [] are falsy in Python and PHP,
 *   truthy in JavaScript: both readings are covered by sending them);
 * - the members a common decoder coerces into a valid value by default: a numeral for an integer
 *   ("12": pydantic's lax mode, Jackson's scalar coercion), a fraction for an integer (1.5:
 *   Jackson's ACCEPT_FLOAT_AS_INT truncates), a number for a string (1: a presence check lets it
 *   through, Jackson and pydantic 1 turn it into "1"; for an enumeration 0 already stands for
 *   Jackson's ordinals), and a plain string outside the enumeration.
 * Every other member (true, a non-empty object, a one-element array of a valid value, other
 * numbers) is drawn by the seed.
 */
import { componentSchema, resolvedSchema, statusValues, type JsonSchema } from '../interface/openapi.js';
import type { JsonValue } from '../interface/json.js';

/** How the schema types a NewPet field. */
export type FieldKind = 'string' | 'integer' | 'enum';

/** A JSON type as the matrix splits them: an integer field's numbers are split into its own type and fractions. */
export type MatrixType = 'number' | 'fraction' | 'string' | 'boolean' | 'null' | 'object' | 'array';

export interface FieldType {
  field: string;
  kind: FieldKind;
  /** The class name of CREATE-003 ("status-outside-enum" for an enumeration's strings). */
  className: string;
  type: MatrixType;
  /** Sent every run. */
  edges: [JsonValue, ...JsonValue[]];
  /** Drawn by the seed only. */
  more: JsonValue[];
}

function fieldKind(schema: JsonSchema): FieldKind {
  const resolved = resolvedSchema(schema);
  if (Array.isArray(resolved['enum'])) return 'enum';
  if (resolved['type'] === 'integer') return 'integer';
  if (resolved['type'] === 'string') return 'string';
  throw new Error(`openapi.yaml: NewPet field of unsupported type ${JSON.stringify(resolved)}`);
}

/** A valid value of a field of this kind, for the members that wrap one. */
function validValue(kind: FieldKind): JsonValue {
  if (kind === 'enum') return statusValues()[0] ?? 'available';
  return kind === 'integer' ? 1n : 'Rex';
}

/** The forbidden types of a field of this kind, with their edges and the rest of their members. */
type Members = { type: MatrixType; edges: [JsonValue, ...JsonValue[]]; more: JsonValue[] };

function forbidden(kind: FieldKind): Members[] {
  const valid = validValue(kind);
  const objects: JsonValue[] = [{ value: valid }, { first: 'Rex' }];
  const common: Members[] = [
    { type: 'boolean', edges: [false], more: [true] },
    { type: 'null', edges: [null], more: [] },
    { type: 'object', edges: [{}], more: objects },
    { type: 'array', edges: [[]], more: [[valid], [valid, valid]] },
  ];
  if (kind === 'integer') {
    return [
      { type: 'string', edges: ['', '12'], more: ['abc', ' 12', '1e3'] },
      { type: 'fraction', edges: [1.5], more: [-0.25, 0.5] },
      ...common,
    ];
  }
  if (kind === 'enum') return [{ type: 'string', edges: ['', 'adopted'], more: ['unknown', 'for sale'] }, { type: 'number', edges: [0], more: [1, 2, 1.5] }, ...common];
  return [{ type: 'number', edges: [0, 1], more: [42, -7, 1.5] }, ...common];
}

/** Every forbidden type of every NewPet field, in the schema's order of fields. */
export function newPetTypeMatrix(): FieldType[] {
  const properties = componentSchema('NewPet')['properties'];
  if (typeof properties !== 'object' || properties === null) throw new Error('openapi.yaml: NewPet has no properties');
  return Object.entries(properties as Record<string, JsonSchema>).flatMap(([field, schema]) => {
    const kind = fieldKind(schema);
    return forbidden(kind).map(({ type, edges, more }) => ({
      field,
      kind,
      type,
      className: kind === 'enum' && type === 'string' ? `${field}-outside-enum` : `${field}-${type}`,
      edges,
      more,
    }));
  });
}
