/** The zero-cases rule: a property that tried no case is inconclusive with the reason, never a pass. */
import { describe, expect, it } from 'vitest';
import { casesJudged } from '../src/conformance/requirement-test.js';
import { restsOnLine } from '../src/report/render/common.js';

describe('what a verdict rests on', () => {
  it('0 fixed examples and 0 random runs: inconclusive, saying so', () => {
    expect(casesJudged(0, 0)).toEqual({ detail: '0 fixed examples and 0 random runs', inconclusive: 'judged on 0 cases (0 fixed examples and 0 random runs): nothing was tried' });
  });

  it('0 cases beside other exchanges the test relied on (a property planned with none): judged on those', () => {
    expect(casesJudged(0, 0, 2)).toEqual({ detail: '0 fixed examples and 0 random runs' });
  });

  it('any case tried: judged, with the cases it rests on', () => {
    expect(casesJudged(3, 23)).toEqual({ detail: '3 fixed examples and 20 random runs' });
    expect(casesJudged(0, 1).inconclusive).toBeUndefined();
  });

  it('the row detail of a pass names the exchanges and the cases', () => {
    expect(restsOnLine({ exchanges: 12, cases: 23, detail: '3 fixed examples and 20 random runs' })).toBe('rests on 12 exchanges (3 fixed examples and 20 random runs)');
    expect(restsOnLine({ exchanges: 1 })).toBe('rests on 1 exchange');
  });
});
