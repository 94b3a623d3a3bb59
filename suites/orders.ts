/**
 * Section 4.4: GET /store/orders exists. Its response is not shown, so only its existence is
 * judged: not 404, not a server error, not an authentication failure with a valid key.
 */
import { describe } from 'vitest';
import { requirementTest } from '../src/conformance/requirement-test.js';

describe('4.4 orders', () => {
  requirementTest('ORDERS-001', async (t) => {
    const ex = await t.send({ method: 'GET', path: '/store/orders' });
    const status = ex.response?.status;
    if (status === undefined) return t.inconclusive(`GET /store/orders got no response (${ex.error?.code})`);
    if (status >= 200 && status < 300) {
      t.observe(`GET /store/orders answered ${status} with ${ex.response?.headers['content-type'] ?? 'no content type'}`, ex);
    } else if (status >= 400 && status < 500 && ![401, 403, 404].includes(status)) {
      t.observe(`GET /store/orders answered ${status}; it may need parameters the spec does not show`, ex);
    } else {
      t.fail(`GET /store/orders with a valid key: received ${status} / expected the endpoint to exist and answer (not 404, 401/403, 3xx or 5xx)`, ex);
    }
  });
});
