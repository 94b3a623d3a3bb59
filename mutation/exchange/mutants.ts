/**
 * Every exchange mutant: each operator of its target class on each target of targets.ts, under
 * no condition or one generated from the same description (a status class or an operation the
 * document names, another parameter of the operation present or absent, as pairwise testing
 * pairs them, the first window or a later one, the key or none). Named
 * `operator@target[@condition]`.
 */
import { newPetTypeMatrix } from '../../src/arbitraries/type-matrix.js';
import { statusValues } from '../../src/interface/openapi.js';
import { IDENTITY, jsonBodyOf, isJsonObject, type Mutation } from './layer.js';
import {
  ALWAYS,
  BODY_OPERATORS,
  LIMITER_OPERATORS,
  LISTING_OPERATORS,
  STATE_OPERATORS,
  STATUS_NEIGHBOURS,
  bodyMutation,
  fieldMutation,
  fieldOperators,
  headerMutation,
  headerOperators,
  ignoreFilterMutation,
  inClass,
  limiterMutation,
  listingMutation,
  requestMutation,
  stateMutation,
  statusMutation,
  windowTracker,
  type Condition,
} from './operators.js';
import { ELEMENT_SECTIONS, fieldAndBodyTargets, headerTargets, listingTargets, operationSections, queryParameters, requestTargets, statusTargets, type Target } from './targets.js';

export type TargetClass = Target['class'] | 'limiter' | 'state' | 'none';

export interface ExchangeMutant {
  name: string;
  operator: string;
  target: string;
  targetClass: TargetClass;
  condition: string | undefined;
  /** The sections a kill must fail a requirement of; the first is the one counts are printed by. */
  sections: string[];
  /** Its effect may depend on time (rate limits, state): judged at every window phase and seed. */
  timeDependent: boolean;
  /** The conforming variant whose server it runs in front of; the reference's when absent. */
  server?: string;
  /** A fresh mutation, for one run. */
  make(): Mutation;
}

/** A condition by name, made fresh per run (the window condition remembers the first Reset). */
interface NamedCondition {
  name: string;
  side: 'request' | 'response';
  make(): Condition;
}

const queryCondition = (param: string, present: boolean): NamedCondition => ({
  name: `${param}=${present ? 'present' : 'absent'}`,
  side: 'request',
  make: () => (_request, info) => info.query.has(param) === present,
});

const bodyFieldCondition = (field: string, present: boolean): NamedCondition => ({
  name: `${field}=${present ? 'present' : 'absent'}`,
  side: 'request',
  make: () => (request) => {
    const body = jsonBodyOf(request);
    return isJsonObject(body) && Object.hasOwn(body, field) === present;
  },
});

const classCondition = (cls: string): NamedCondition => ({ name: `class=${cls}`, side: 'response', make: () => (_request, _info, response) => response !== undefined && inClass(response.status, cls) });

const operationCondition = (operation: string): NamedCondition => ({ name: `op=${operation}`, side: 'request', make: () => (_request, info) => info.operation === operation });

const keyCondition = (keyed: boolean): NamedCondition => ({ name: `key=${keyed ? 'with' : 'without'}`, side: 'request', make: () => (_request, info) => info.keyed === keyed });

const windowCondition = (which: 'first' | 'later'): NamedCondition => ({
  name: `window=${which}`,
  side: 'response',
  make: () => {
    const windowOf = windowTracker();
    return (_request, _info, response) => response !== undefined && windowOf(response) === which;
  },
});

/**
 * The server of the mutants whose fault a 1-second window hides: a count gone stale repeats what
 * the first window ended on, which is 0 where the run used that window up, and on 1 s windows the
 * give-backs served at 0 are too short to judge. The reference's own limiter, on 5 s windows.
 */
export const LONG_WINDOW_SERVER = 'limiter-aligned-5s-windows';

const classOf = (status: number): string => (status === 429 ? '429' : `${Math.floor(status / 100)}xx`);

function mutant(
  operator: string,
  target: { name: string; class: TargetClass; sections: string[] },
  condition: NamedCondition | undefined,
  timeDependent: boolean,
  make: (when: Condition) => Mutation,
): ExchangeMutant {
  return {
    name: [operator, target.name, ...(condition === undefined ? [] : [condition.name])].join('@'),
    operator,
    target: target.name,
    targetClass: target.class,
    condition: condition?.name,
    sections: target.sections,
    timeDependent,
    make: () => make(condition === undefined ? ALWAYS : condition.make()),
  };
}

export function exchangeMutants(): ExchangeMutant[] {
  const all: ExchangeMutant[] = [];
  const sectionOf = operationSections();
  all.push({ name: 'identity', operator: 'identity', target: '-', targetClass: 'none', condition: undefined, sections: [], timeDependent: false, make: () => IDENTITY });

  for (const target of fieldAndBodyTargets()) {
    if (target.class === 'field') {
      for (const op of fieldOperators(target)) all.push(mutant(op, target, undefined, false, (when) => fieldMutation(target, op, when)));
    } else {
      for (const op of BODY_OPERATORS) all.push(mutant(op, target, undefined, false, (when) => bodyMutation(target, op, when)));
    }
  }

  for (const target of headerTargets()) {
    const timed = target.kind !== 'media-type';
    // A scope narrower than the header's whole reach: one class among several, one operation among several.
    const classes = [...new Set(target.statuses.map(classOf))];
    const scopes = classes.length > 1 ? classes.map(classCondition) : [];
    const perOperation = target.operations.length > 1 ? target.operations.map(operationCondition) : [];
    for (const op of headerOperators(target)) {
      const made = mutant(op, target, undefined, timed, (when) => headerMutation(target, op, when));
      all.push(op === 'stale' && target.kind === 'count' ? { ...made, server: LONG_WINDOW_SERVER } : made);
      // The commonest faults, scoped: on one status class, on one operation.
      if (op === 'remove' || op === 'freeze' || (op === 'text-plain' && !timed)) {
        for (const scope of [...scopes, ...perOperation]) all.push(mutant(op, target, scope, timed, (when) => headerMutation(target, op, when)));
      }
    }
    if (timed) {
      for (const scope of [keyCondition(false), keyCondition(true), windowCondition('later')]) all.push(mutant('remove', target, scope, true, (when) => headerMutation(target, 'remove', when)));
      all.push(mutant('shift+k', target, windowCondition('later'), true, (when) => headerMutation(target, 'shift+k', when)));
    }
  }

  for (const target of statusTargets()) {
    for (const replacement of STATUS_NEIGHBOURS[target.status] ?? []) {
      all.push(mutant(`status-${replacement}`, target, undefined, target.status === 429, (when) => statusMutation(target, replacement, when)));
    }
  }

  const newPetFields = [...new Set(newPetTypeMatrix().map((m) => m.field))];
  for (const target of requestTargets()) {
    const accept = `accept-${target.breaking}`;
    all.push(mutant(accept, target, undefined, false, (when) => requestMutation(target, when)));
    // Pairs: the same leniency only while another field or parameter of the operation is present, or absent.
    const others =
      target.where === 'body'
        ? target.breaking === 'missing' || target.breaking === 'null'
          ? newPetFields.filter((f) => f !== target.field).flatMap((f) => [bodyFieldCondition(f, true), bodyFieldCondition(f, false)])
          : []
        : target.breaking === 'string' || target.breaking === 'fraction'
          ? []
          : queryParameters(target.operation)
              .filter((p) => p !== target.field)
              .flatMap((p) => [queryCondition(p, true), queryCondition(p, false)]);
    for (const condition of others) all.push(mutant(accept, target, condition, false, (when) => requestMutation(target, when)));
  }

  for (const target of listingTargets()) {
    const pairs = queryParameters(target.operation).flatMap((p) => [queryCondition(p, true), queryCondition(p, false)]);
    for (const op of LISTING_OPERATORS()) {
      // Bytes that are not UTF-8 are the media type's too (section 1: JSON is UTF-8 text).
      const within = op.startsWith('break-encoding-') ? { ...target, sections: [...target.sections, ELEMENT_SECTIONS.media] } : target;
      for (const condition of [undefined, ...pairs]) all.push(mutant(op, within, condition, false, (when) => listingMutation(target, op, when)));
    }
    for (const value of statusValues()) all.push(mutant(`ignore-filter-${value}`, target, undefined, false, (when) => ignoreFilterMutation(target, value, when)));
  }

  const limiter = { name: 'limiter', class: 'limiter' as const, sections: [ELEMENT_SECTIONS.limits] };
  for (const op of LIMITER_OPERATORS) all.push(mutant(op, limiter, undefined, true, () => limiterMutation(op)));

  const store = { name: 'store', class: 'state' as const, sections: [...new Set([ELEMENT_SECTIONS.resource, ...['createPet', 'getPet', 'listPets'].map((o) => sectionOf.get(o) ?? '')])].filter((s) => s !== '') };
  for (const op of STATE_OPERATORS) all.push(mutant(op, store, undefined, true, () => stateMutation(op)));

  const names = new Set<string>();
  for (const m of all) {
    if (names.has(m.name)) throw new Error(`two exchange mutants named ${m.name}`);
    names.add(m.name);
  }
  return all;
}

/** Mutants per primary section (the first of their sections), for the printed count. */
export function countBySection(mutants: readonly ExchangeMutant[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const m of mutants) {
    const section = m.sections[0] ?? '-';
    counts.set(section, (counts.get(section) ?? 0) + 1);
  }
  return new Map([...counts].sort(([a], [b]) => a.localeCompare(b, undefined, { numeric: true })));
}
