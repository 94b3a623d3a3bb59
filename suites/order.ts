/**
 * The order the suites run in, declared here rather than implied by imports (a suite's tests are
 * registered when this order reaches it: src/conformance/suite.ts):
 * - creation first: it seeds the pets the listing needs;
 * - out-of-range limits after the refused-write checks: they may fill the store beyond one page;
 * - the rate-limit burst after every other probe;
 * - the names a store may not survive (--risk-breaking-store) after everything else that reads
 *   the store;
 * - the cross-cutting verdicts last, once every exchange has been checked.
 */
import type { Suite } from '../src/conformance/suite.js';
import { createPet } from './create-pet.js';
import { listPets } from './list-pets.js';
import { getPet } from './get-pet.js';
import { orders } from './orders.js';
import { auth } from './auth.js';
import { rejectedWrites } from './rejected-writes.js';
import { listLimitBounds } from './list-limit-bounds.js';
import { rateLimit } from './rate-limit.js';
import { storeBreaking } from './store-breaking.js';
import { crossCutting } from './cross-cutting.js';

export const SUITE_ORDER: readonly Suite[] = [createPet, listPets, getPet, orders, auth, rejectedWrites, listLimitBounds, rateLimit, storeBreaking, crossCutting];
