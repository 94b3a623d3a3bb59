/**
 * The envelope and the statement checked against schemas/attestation.schema.json, compiled once
 * (at first use) by the shared Ajv like our other artefacts' schemas.
 */
import { readFileSync } from 'node:fs';
import { compileValidator } from '../interface/validators.js';
import type { JsonSchema } from '../interface/openapi.js';
import { packagePath } from '../interface/package-root.js';

type Checker = (value: unknown) => string[];

let checkers: { envelope: Checker; statement: Checker; predicate: Checker } | undefined;

function compiled(): NonNullable<typeof checkers> {
  if (checkers === undefined) {
    const schema = JSON.parse(readFileSync(packagePath('schemas', 'attestation.schema.json'), 'utf8')) as JsonSchema & { $id: string };
    // Compiling the root registers its $id, so its $defs can be compiled by reference.
    const envelope = compileValidator(schema);
    checkers = {
      envelope,
      statement: compileValidator({ $ref: `${schema.$id}#/$defs/statement` }),
      predicate: compileValidator({ $ref: `${schema.$id}#/$defs/predicate` }),
    };
  }
  return checkers;
}

/** Why the value is not a DSSE envelope of an in-toto statement; [] when it is one. */
export function envelopeErrors(value: unknown): string[] {
  return compiled().envelope(value);
}

/** Why the value is not a Statement v1 with this project's predicate; [] when it is one. */
export function statementErrors(value: unknown): string[] {
  return compiled().statement(value);
}

export function predicateErrors(value: unknown): string[] {
  return compiled().predicate(value);
}
