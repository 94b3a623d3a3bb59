/**
 * Requirements judged on every response of the run. Their checks ran as each exchange arrived
 * (src/session/check-pipeline.ts); these tests, last in the run, turn the ledger into verdicts.
 */
import { suite } from '../src/conformance/suite.js';
import { afterAll } from 'vitest';
import { crossCuttingTest } from '../src/conformance/requirement-test.js';
import { operationOf } from '../src/checks/body.js';
import type { Exchange } from '../src/http/exchange.js';
import { findEarly429s } from '../src/checks/early-429.js';
import { describeOtherUse, judgeKeyUse, otherUseOf } from '../src/checks/key-use.js';
import { findUnexplainedRises } from '../src/checks/remaining-rise.js';
import { observeDateLag } from '../src/checks/server-clock.js';
import { findResetsMovingBack, findResetsPassedWithNothingGivenBack } from '../src/checks/rate-limit-sequence.js';
import { judgeSequences } from './model-sequences.js';
import { getSession } from '../src/session/session.js';
import { encodeProgress } from '../src/conformance/progress.js';
import { timelineRecord } from '../src/report/timeline-record.js';

const answered = (ex: Exchange): boolean => ex.response !== undefined;
const withBody = (ex: Exchange): boolean => (ex.response?.bodyText.length ?? 0) > 0;
const isError = (ex: Exchange): boolean => (ex.response?.status ?? 0) >= 400;
const keyed = (ex: Exchange): boolean => answered(ex) && ex.request.auth === 'key';
const getPet = (ex: Exchange): boolean => answered(ex) && operationOf(ex) === 'getPet';
const petBearing = (ex: Exchange): boolean => {
  const status = ex.response?.status;
  const op = operationOf(ex);
  return (op === 'listPets' && status === 200) || (op === 'createPet' && status === 201) || (op === 'getPet' && status === 200);
};

export const crossCutting = suite('cross-cutting (1, 2, 4.3, 7, 8)', () => {
  crossCuttingTest('MEDIA-001', withBody);
  crossCuttingTest('PET-001', petBearing);
  // The model-based sequences also judge ids (a new pet's id is new): their findings, and steps when they broke PET-002.
  crossCuttingTest('PET-002', (ex) => petBearing(ex) && operationOf(ex) !== 'getPet', judgeSequences);
  crossCuttingTest('GET-004', getPet);
  crossCuttingTest('GET-005', getPet);
  crossCuttingTest('ERR-001', isError);
  crossCuttingTest('ERR-002', (ex) => isError(ex) && withBody(ex));
  crossCuttingTest('RATE-001', answered);
  // An early 429 is judged once the run is over: requests still in flight when it came may have been counted before it;
  // so is a rise of Remaining, against every earlier response of its window and the whole run's clock.
  crossCuttingTest('RATE-002', keyed, async (t) => {
    const mode = t.session.config.keyMode ?? 'shared';
    const exchanges = t.session.client.exchanges;
    const clock = t.session.serverClock;
    t.record([...findEarly429s(exchanges, mode, clock), ...judgeKeyUse(exchanges, mode), ...findUnexplainedRises(exchanges, clock)]);
    const otherConsumption = describeOtherUse(otherUseOf(exchanges), mode);
    t.noteKeyUse({ mode, ...(otherConsumption === undefined ? {} : { otherConsumption }) });
  });
  // Date headers that lagged the clock the run read from the freshest of them: recorded, never failed;
  // and a Reset that moved back or passed with nothing given back, judged on the whole run's clock.
  crossCuttingTest('RATE-003', answered, async (t) => {
    const exchanges = t.session.client.exchanges;
    const clock = t.session.serverClock;
    const mode = t.session.config.keyMode ?? 'shared';
    t.record([...observeDateLag(exchanges, clock), ...findResetsMovingBack(exchanges, clock), ...findResetsPassedWithNothingGivenBack(exchanges, mode, clock)]);
  });
  crossCuttingTest('RATE-004', keyed, async (t) => {
    if (t.session.config.plan === undefined) {
      const limit = t.session.client.rateLimit.limit;
      t.notExercised(`no --plan given, so the advertised X-RateLimit-Limit (${limit ?? 'none'}) is only recorded; name the key's plan with --plan to check it`);
    }
  });
  crossCuttingTest('RATE-008', answered);

  // The run's timeline for report.html, once nothing more is sent: placed on the server's clock as the whole run's Date headers show it.
  afterAll(() => {
    const session = getSession();
    const timeline = timelineRecord(session.client.exchanges, session.serverClock, session.waits, session.store.laggedReads);
    console.info(encodeProgress({ kind: 'timeline', timeline }));
  });
});
