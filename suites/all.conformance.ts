/**
 * The one test file the CLI runs. Suites are imported in this order on purpose: creation first
 * (it seeds the pets the listing needs), out-of-range limits after the refused-write checks (they
 * may fill the store beyond one page), the rate-limit burst after every other probe, the names a
 * store may not survive (--risk-breaking-store) after everything else that reads the store, and
 * the cross-cutting verdicts last, once every exchange has been checked.
 */
import './create-pet.js';
import './list-pets.js';
import './get-pet.js';
import './orders.js';
import './auth.js';
import './rejected-writes.js';
import './list-limit-bounds.js';
import './rate-limit.js';
import './store-breaking.js';
import './cross-cutting.js';
