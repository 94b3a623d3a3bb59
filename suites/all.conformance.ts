/**
 * The one test file the CLI runs. Suites are imported in this order on purpose: creation first
 * (it seeds the pets the listing needs), the rate-limit burst after every other probe, and the
 * cross-cutting verdicts last, once every exchange has been checked. Before any of them, the
 * preflight catches a rejected key or a base URL without /v1 in one or two requests.
 */
import { beforeAll } from 'vitest';
import { getSession } from '../src/session/session.js';
import { preflight } from '../src/session/preflight.js';
import './create-pet.js';
import './list-pets.js';
import './get-pet.js';
import './orders.js';
import './auth.js';
import './rejected-writes.js';
import './rate-limit.js';
import './cross-cutting.js';

// As long as a test may take: the preflight may have to wait out a rate-limit window.
beforeAll(() => preflight(getSession()), 5 * 60_000);
