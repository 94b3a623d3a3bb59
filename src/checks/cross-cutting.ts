/**
 * The checks the session runs on every exchange of the run, whatever sent it. Their findings go
 * to the ledger, which the last suite turns into one verdict per requirement listed here.
 */
import type { Exchange } from '../http/exchange.js';
import type { PlanName } from '../run-config.js';
import { checkDeprecation } from './deprecation.js';
import { checkErrorBody } from './error-body.js';
import type { Finding } from './finding.js';
import type { JsonValue } from '../interface/json.js';
import { checkMediaType } from './media-type.js';
import { checkPetShape } from './pet-shape.js';
import { checkRateLimitHeaders } from './rate-limit-headers.js';

/**
 * Exactly the catalog's `crossCutting: true` entries (a test keeps them equal). RATE-005 is not
 * among them: checkRetryAfter is run by the RATE-005 test on its own 429, and running it here as
 * well would record every finding twice in that test's ledger window.
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
] as const;

export type CrossCuttingRequirement = (typeof CROSS_CUTTING_REQUIREMENTS)[number];

/** RATE-002's falling part needs two exchanges; the session pairs them with checkRemainingFalls. */
export interface CrossCuttingContext {
  plan?: PlanName;
  /** Pets that are CREATE-003's finding (created from a body that should have been refused), not PET-001's. */
  excused?: (pet: JsonValue) => boolean;
}

export function crossCuttingChecks(ex: Exchange, ctx: CrossCuttingContext = {}): Finding[] {
  return [...checkMediaType(ex), ...checkPetShape(ex, ctx.excused), ...checkErrorBody(ex), ...checkRateLimitHeaders(ex, ctx), ...checkDeprecation(ex)];
}
