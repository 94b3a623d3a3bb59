/**
 * The checks the session runs on every exchange of the run, whatever sent it. Their findings go
 * to the ledger, which the last suite turns into one verdict per requirement listed here.
 */
import type { Exchange } from '../http/exchange.js';
import type { Plan } from '../plans.js';
import { checkDeprecation } from './deprecation.js';
import { checkErrorBody } from './error-body.js';
import type { Finding } from './finding.js';
import type { JsonValue } from '../interface/json.js';
import { checkMediaType } from './media-type.js';
import { checkPetShape } from './pet-shape.js';
import { checkRateLimitHeaders } from './rate-limit-headers.js';
import { checkRetryAfter } from './retry-after.js';
import { checkRetryAfterAgreesWithReset } from './retry-after-reset.js';
import type { ServerClock } from './server-clock.js';
import { checkUtf8Body } from './utf8-body.js';

/**
 * Exactly the catalog's `crossCutting: true` entries (a test keeps them equal). RATE-005 and
 * RATE-006 are among them because every 429 of the run is judged, not only the burst's; their
 * own tests add the burst and the recovery probe, and do not check the 429s again.
 */
export const CROSS_CUTTING_REQUIREMENTS = [
  'MEDIA-001',
  'PET-001',
  'PET-002',
  'GET-004',
  'GET-005',
  'ERR-001',
  'ERR-002',
  'RATE-001',
  'RATE-002',
  'RATE-003',
  'RATE-004',
  'RATE-005',
  'RATE-006',
  'RATE-008',
] as const;

export type CrossCuttingRequirement = (typeof CROSS_CUTTING_REQUIREMENTS)[number];

export interface CrossCuttingContext {
  plan?: Plan;
  /** Pets that are CREATE-003's finding (created from a body that should have been refused), not PET-001's. */
  excused?: (pet: JsonValue) => boolean;
  /** The server's clock as the run's Date headers show it so far (server-clock.ts); without it, each response's own Date. */
  clock?: ServerClock;
}

/**
 * The checks of two keyed exchanges in a row are paired by the session (checkRateLimitPair), a
 * retry with its 429 too (checkRetryHonoured); an early 429 needs the whole run (findEarly429s).
 */
export function crossCuttingChecks(ex: Exchange, ctx: CrossCuttingContext = {}): Finding[] {
  return [
    ...checkMediaType(ex),
    ...checkUtf8Body(ex),
    ...checkPetShape(ex, ctx.excused),
    ...checkErrorBody(ex),
    ...checkRateLimitHeaders(ex, ctx),
    ...checkRetryAfter(ex, ctx.clock),
    ...checkRetryAfterAgreesWithReset(ex, ctx.clock),
    ...checkDeprecation(ex),
  ];
}
