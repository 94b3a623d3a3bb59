import { describe, expect, it } from 'vitest';
import { violation } from '../src/checks/finding.js';
import { groupFindings, groupLine } from '../src/conformance/group-findings.js';

const SHAPE = 'a pet in the listing: /id must be integer';

describe('groupFindings / groupLine', () => {
  it('one line per distinct violation, counting the responses that showed it, with the first detail', () => {
    const findings = [
      ...Array.from({ length: 10 }, (_, i) => violation('PET-001', SHAPE, i + 3, `pet #${42 + i} of 100`)),
      violation('PET-001', 'the body must be object', 20),
    ];
    const groups = groupFindings(findings);
    expect(groups.map((g) => [g.count, g.responses, g.first.exchange])).toEqual([
      [10, 10, 3],
      [1, 1, 20],
    ]);
    expect(groups.map(groupLine)).toEqual([`10 responses: ${SHAPE} (first: pet #42 of 100)`, 'the body must be object']);
  });

  it('a group of one reads as the finding; repeats without distinct responses are counted as times', () => {
    expect(groupLine(groupFindings([violation('LIST-003', 'short page', 7, 'limit=7')])[0]!)).toBe('short page (limit=7)');
    expect(groupLine(groupFindings([violation('AUTH-001', 'no 401'), violation('AUTH-001', 'no 401')])[0]!)).toBe('2 times: no 401');
  });
});
