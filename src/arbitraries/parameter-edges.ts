/**
 * Each operation's parameters at their edges, gathered from the tables the suites send them from
 * with the key (pet-ids.ts, limits.ts, statusFilter.ts), for the probes that send them without a
 * valid key (suites/auth.ts, AUTH-001..003): every one must get 401.
 *
 * Every edge is a request to its operation. A petId that is not an int64 (`abc`, one beyond int64)
 * is left out: a path holding one is no getPet, and a router may answer it 404 as it answers any
 * path it does not serve. limit and status do not choose the operation, so every value of theirs
 * is listPets, out of bounds or not a number at all.
 */
import { listLimits, statusValues } from '../interface/openapi.js';
import { fixedInvalidLimits } from './limits.js';
import { INT64_EDGE_IDS } from './pet-ids.js';
import { invalidStatusEdges } from './statusFilter.js';

export interface ParameterEdge {
  operation: 'getPet' | 'listPets';
  parameter: 'petId' | 'limit' | 'status';
  /** As sent: the path segment for petId, the query value for limit and status. */
  value: string;
}

/** How reports and the README name an edge: `petId=-1`, `limit=0`. */
export const edgeLabel = (edge: ParameterEdge): string => `${edge.parameter}=${edge.value}`;

const petIdEdge = (id: bigint): ParameterEdge => ({ operation: 'getPet', parameter: 'petId', value: String(id) });
const queryEdge = (parameter: 'limit' | 'status') => (value: string): ParameterEdge => ({ operation: 'listPets', parameter, value });

/** Every edge: the int64 edge petIds, limit at both bounds and at every invalid value the run sends, each status and the invalid one. */
export function parameterEdges(): ParameterEdge[] {
  const { min, max } = listLimits();
  return [
    ...INT64_EDGE_IDS.map(petIdEdge),
    ...[String(min), String(max), ...fixedInvalidLimits()].map(queryEdge('limit')),
    ...[...statusValues(), ...invalidStatusEdges()].map(queryEdge('status')),
  ];
}

/** A negative petId: a route that takes digits only (`\d+`) does not match it. */
function negativePetId(): ParameterEdge {
  const edge = parameterEdges().find((e) => e.parameter === 'petId' && BigInt(e.value) < 0n);
  if (edge === undefined) throw new Error('INT64_EDGE_IDS holds no negative id');
  return edge;
}

/** The limit just below the minimum: every validator of limit refuses it, whatever it makes of the others. */
function limitBelowMinimum(): ParameterEdge {
  const below = String(listLimits().min - 1);
  const edge = parameterEdges().find((e) => e.parameter === 'limit' && e.value === below);
  if (edge === undefined) throw new Error(`fixedInvalidLimits() holds no limit=${below}`);
  return edge;
}

/**
 * The edges sent with a random wrong key (AUTH-002). A route or validator that runs before the key
 * check answers the same whatever credential is missing or wrong, so one edge of each suffices: the
 * negative petId for the route, the limit below the minimum for the validator. They catch a server
 * whose front refuses a request without Authorization while the key itself is checked later.
 */
export function wrongKeyEdges(): ParameterEdge[] {
  return [negativePetId(), limitBelowMinimum()];
}

/**
 * The edge sent with a malformed header (AUTH-003): the negative petId only, the shape of both
 * routing-before-authentication stacks seen (a route taking digits only, middleware on a route
 * group). Every probe without a valid key together stays within the 60 requests of a Free minute,
 * in case the server counts them per client address.
 */
export function malformedHeaderEdges(): ParameterEdge[] {
  return [negativePetId()];
}
