/**
 * The int64/int32 formats of the interface, as Ajv format definitions. One module for the run-time
 * Ajv instance and for the standalone validators the build generates (dist/schemas/validators.mjs
 * imports INTEGER_FORMATS from the compiled copy of this file), so both judge ranges with the same
 * functions. No imports at run time: the generated module loads nothing else through it.
 */
import type { FormatDefinition } from 'ajv/dist/2020.js';

export const TWO_63 = 2 ** 63;
const TWO_31 = 2 ** 31;

// ajv-formats accepts any integer as int64/int32 (a double cannot tell); validators.ts's view of
// bigints makes the range checkable on doubles.
export const INTEGER_FORMATS = {
  int64: { type: 'number', validate: (x: number) => Number.isInteger(x) && x >= -TWO_63 && x < TWO_63 },
  int32: { type: 'number', validate: (x: number) => Number.isInteger(x) && x >= -TWO_31 && x < TWO_31 },
} satisfies Record<string, FormatDefinition<number>>;
