/** How a shrunk property input is shown in every report: JSON text, exactly as it can be sent. */
import { stringifyJson, type JsonValue } from '../interface/json.js';

/** A property input as JSON: undefined fields dropped, what JSON cannot hold (NaN, functions) as text. */
function toJson(value: unknown): JsonValue | undefined {
  switch (typeof value) {
    case 'undefined':
      return undefined;
    case 'boolean':
    case 'string':
    case 'bigint':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : String(value);
    case 'object':
      if (value === null) return null;
      if (Array.isArray(value)) return value.map((v) => toJson(v) ?? null);
      return Object.fromEntries(
        Object.entries(value).flatMap(([k, v]): Array<[string, JsonValue]> => {
          const json = toJson(v);
          return json === undefined ? [] : [[k, json]];
        }),
      );
    default:
      return String(value);
  }
}

/**
 * A shrunk input as JSON text that curl can send: big integers as their digits (fast-check's
 * own rendering writes `123n`, which no JSON parser accepts).
 */
export function display(value: unknown): string {
  const json = toJson(value);
  return json === undefined ? 'undefined' : stringifyJson(json);
}
