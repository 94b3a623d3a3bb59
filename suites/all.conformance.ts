/** The one test file the CLI runs: every suite, in the order suites/order.ts declares. */
import { SUITE_ORDER } from './order.js';

for (const suite of SUITE_ORDER) suite.register();
