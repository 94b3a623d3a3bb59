/**
 * Section 4.4: GET /store/orders exists. Its response is not shown, so only the status is judged:
 * the spec shows a GET without required parameters, so an authorised one is answered with a 2xx.
 */
import { suite } from '../src/conformance/suite.js';
import { requirementTest } from '../src/conformance/requirement-test.js';

export const orders = suite('4.4 orders', () => {
  requirementTest('ORDERS-001', async (t) => {
    const ex = await t.send({ method: 'GET', path: '/store/orders' });
    const status = ex.response?.status;
    if (status === undefined) return t.inconclusive(`GET /store/orders got no response (${ex.error?.code})`);
    if (status === 429) return t.inconclusive('GET /store/orders was still refused with 429 after waiting Retry-After once');
    if (status >= 200 && status < 300) {
      t.observe(`GET /store/orders answered ${status} with ${ex.response?.headers['content-type'] ?? 'no content type'}`, ex);
    } else {
      t.fail(`GET /store/orders with a valid key: received ${status} / expected a 2xx: the endpoint exists and is shown as a GET without required parameters`, ex);
    }
  });
});
