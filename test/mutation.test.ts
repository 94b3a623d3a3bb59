/**
 * `npm run mutate`'s own logic (mutation/): the kill criterion, the triage keys that survive line
 * shifts, the triage's classes and the score. The Stryker run itself is never part of `npm test`.
 */
import { describe, expect, it } from 'vitest';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXTRA_FLAGS, extraFlagsBeside } from '../mutation/config.js';
import { takeSlot } from '../mutation/cpu-slots.js';
import { firstDecisive } from '../mutation/first-decisive.js';
import { judgeReport } from '../mutation/judge.js';
import { targetLineProblem } from '../mutation/target-line.js';
import { compactText, keyOf, parseSource, scopeAt } from '../mutation/keys.js';
import { README_BEGIN, README_END, consoleSummary, readmeBlock, withReadmeBlock, type JudgedRun } from '../mutation/report.js';
import { figuresOf, scoreOf, triageProblems, unusedEntries, verdictOf, type JudgedMutant, type Triage } from '../mutation/triage.js';
import type { RequirementResult } from '../src/report/types.js';

const requirement = (id: string, level: 'must' | 'should', status: RequirementResult['status'], violation?: string): RequirementResult => ({
  id,
  section: '4.3',
  title: id,
  level,
  status,
  statement: id,
  tests: [],
  evidence: violation === undefined ? [] : [{ kind: 'violation', message: violation }],
});

describe('the kill criterion', () => {
  it('kills on a failed should, which exits 0', () => {
    const j = judgeReport({ verdict: 'conforms', verdictLine: 'CONFORMS: 33 of 34 pass (1 warning)', requirements: [requirement('GET-005', 'should', 'fail', 'Sunset is empty')] });
    expect(j.detection).toBe('should-failure');
    expect(j.summary).toContain('GET-005 (should): Sunset is empty');
  });

  it('kills on a must failure first, and on NOT VERIFIED without any failure', () => {
    expect(judgeReport({ verdict: 'does-not-conform', verdictLine: '', requirements: [requirement('GET-005', 'should', 'fail', 'x'), requirement('AUTH-001', 'must', 'fail', 'y')] }).detection).toBe('must-failure');
    const halted = judgeReport({ verdict: 'not-verified', verdictLine: 'NOT VERIFIED', requirements: [requirement('RATE-005', 'must', 'inconclusive')], halted: { reason: 'deadline', message: 'deadline passed', unjudged: [] } });
    expect(halted.detection).toBe('not-verified');
    expect(halted.summary).toContain('halted (deadline)');
  });

  it('lets a mutant survive only on CONFORMS without any failure', () => {
    expect(judgeReport({ verdict: 'conforms', verdictLine: 'CONFORMS', requirements: [requirement('AUTH-001', 'must', 'pass')] }).detection).toBe('none');
  });
});

const SOURCE = `export const behaviour = {
  authenticate(header) {
    const check = (value) => value === 'Bearer k';
    return check(header);
  },
};
class Limiter {
  #state(now) { return now + 1; }
}
`;

describe('triage keys', () => {
  const at = (text: string, needle: string): { line: number; column: number } => {
    const offset = text.indexOf(needle);
    const before = text.slice(0, offset).split('\n');
    return { line: before.length, column: (before[before.length - 1]?.length ?? 0) + 1 };
  };
  const mutantIn = (text: string, needle: string) => {
    const start = at(text, needle);
    return { location: { start, end: { line: start.line, column: start.column + needle.length } }, mutatorName: 'StringLiteral', replacement: '""' };
  };

  it('names the declarations around a mutant, outermost first', () => {
    const source = parseSource('behaviour.ts', SOURCE);
    expect(scopeAt(source, SOURCE.indexOf("'Bearer k'"))).toBe('behaviour.authenticate.check');
    expect(scopeAt(source, SOURCE.indexOf('now + 1'))).toBe('Limiter.#state');
  });

  it('stays the same when lines are added above, and changes with the mutated code', () => {
    const key = keyOf('behaviour.ts', parseSource('behaviour.ts', SOURCE), mutantIn(SOURCE, "'Bearer k'"));
    const shifted = `// a comment\n// another\n${SOURCE}`;
    expect(keyOf('behaviour.ts', parseSource('behaviour.ts', shifted), mutantIn(shifted, "'Bearer k'"))).toEqual(key);
    const changed = SOURCE.replace("'Bearer k'", "'Bearer j'");
    expect(keyOf('behaviour.ts', parseSource('behaviour.ts', changed), mutantIn(changed, "'Bearer j'")).original).not.toBe(key.original);
    expect(key).toEqual({ file: 'behaviour.ts', scope: 'behaviour.authenticate.check', mutator: 'StringLiteral', original: "'Bearer k'", replacement: '""' });
  });

  it('collapses whitespace and shortens long code to a head and a digest of the whole', () => {
    expect(compactText('{\n    a();\n    b();\n}')).toBe('{ a(); b(); }');
    const long = `{ ${'x(); '.repeat(40)}}`;
    expect(compactText(long)).toMatch(/^\{ x\(\); .* … #[0-9a-f]{8}$/);
    expect(compactText(long)).not.toBe(compactText(long.replace('x(); }', 'y(); }')));
  });
});

const key = (original: string) => ({ file: 'behaviour.ts', scope: 'SEED_NAMES', mutator: 'StringLiteral', original, replacement: '""' });
const mutant = (original: string, status: JudgedMutant['status']): JudgedMutant => ({ key: key(original), line: 1, status });

describe('the triage', () => {
  const triage: Triage = {
    survivors: [
      { file: 'behaviour.ts', scope: 'SEED_NAMES', mutator: 'StringLiteral', class: 'equivalent', why: 'seed names are any names' },
      { file: 'behaviour.ts', scope: 'SEED_NAMES', mutator: 'StringLiteral', original: "'Zoë'", class: 'room', requirement: 'PET-001', why: 'x' },
    ],
    blindSpots: [{ file: 'behaviour.ts', scope: 'SEED_NAMES', mutator: 'StringLiteral', original: "'Rex'", missed: 'm', check: 'c', variant: 'v' }],
  };

  it('explains survivors by the first entry that matches, with or without original text', () => {
    expect(verdictOf(mutant("'Luna'", 'Survived'), triage)).toMatchObject({ kind: 'classified', entry: { class: 'equivalent' } });
    expect(verdictOf(mutant("'Luna'", 'NoCoverage'), triage)).toMatchObject({ kind: 'classified' });
    expect(verdictOf({ ...mutant("'Luna'", 'Survived'), key: { ...key("'Luna'"), scope: 'other' } }, triage)).toEqual({ kind: 'unclassified' });
  });

  it('knows a long original by the digest of the whole, wherever its head was cut', () => {
    const long = { ...key('{ a … #0123abcd'), scope: 'f', mutator: 'BlockStatement' };
    const entry: Triage = { survivors: [{ file: 'behaviour.ts', scope: 'f', mutator: 'BlockStatement', original: '{ a  … #0123abcd', class: 'equivalent', why: 'w' }], blindSpots: [] };
    expect(verdictOf({ key: long, line: 1, status: 'Survived' }, entry)).toMatchObject({ kind: 'classified' });
    expect(verdictOf({ key: { ...long, original: '{ a … #99999999' }, line: 1, status: 'Survived' }, entry)).toEqual({ kind: 'unclassified' });
  });

  it('keeps a blind spot found apart: killed now, or failing the run while it survives', () => {
    expect(verdictOf(mutant("'Rex'", 'Killed'), triage)).toMatchObject({ kind: 'killed', blindSpot: { variant: 'v' } });
    expect(verdictOf(mutant("'Rex'", 'Survived'), triage)).toMatchObject({ kind: 'blind-spot-survives' });
  });

  it('explains a timeout only by a timeout entry', () => {
    expect(verdictOf(mutant("'Luna'", 'Timeout'), triage)).toEqual({ kind: 'unclassified' });
    const withTimeout: Triage = { ...triage, survivors: [{ ...triage.survivors[0]!, class: 'timeout' }] };
    expect(verdictOf(mutant("'Luna'", 'Timeout'), withTimeout)).toMatchObject({ kind: 'classified', entry: { class: 'timeout' } });
  });

  it('scores killed / (mutants - equivalent - inside the spec\'s room), ignored mutants left out', () => {
    const f = figuresOf([
      { kind: 'killed' },
      { kind: 'killed' },
      { kind: 'killed' },
      { kind: 'ignored' },
      { kind: 'classified', entry: triage.survivors[0]! },
      { kind: 'classified', entry: triage.survivors[1]! },
      { kind: 'unclassified' },
    ]);
    expect(f).toEqual({ mutants: 6, killed: 3, equivalent: 1, room: 1, timeout: 0, optIn: 0, unexplained: 1, ignored: 1 });
    expect(scoreOf(f)).toBe(0.75);
  });

  it('finds entries without reasons, rooms without a requirement of the catalog, and stale entries', () => {
    const problems = triageProblems({ survivors: [{ ...triage.survivors[1]!, requirement: 'NOPE-1' }, { ...triage.survivors[0]!, why: ' ' }, { ...triage.survivors[0]!, class: 'opt-in' }], blindSpots: [] }, new Set(['PET-001']));
    expect(problems).toHaveLength(3);
    expect(unusedEntries(triage, [key("'Luna'")]).map((e) => e.original)).toEqual(["'Zoë'", "'Rex'"]);
  });
});

describe('the report', () => {
  const run: JudgedRun = {
    commit: 'abc1234',
    date: '2026-12-01',
    seed: 31,
    deadlineSeconds: 120,
    mutants: [
      { mutant: { ...mutant("'Rex'", 'Killed'), reason: '[should-failure] CONFORMS' }, verdict: { kind: 'killed' } },
      { mutant: mutant("'Luna'", 'Survived'), verdict: { kind: 'unclassified' } },
    ],
  };

  it('prints an unexplained survivor with file:line, mutator, original -> replacement and an entry to complete', () => {
    const text = consoleSummary(run);
    expect(text).toContain(`UNCLASSIFIED: 1 mutants`);
    expect(text).toContain(`behaviour.ts:1 [Survived] SEED_NAMES StringLiteral: 'Luna' -> ""`);
    expect(text).toContain('original: "\'Luna\'"');
    expect(text).toContain('killed by: should-failure 1');
  });

  it('replaces README\'s block between its markers, and only there', () => {
    const readme = `# x\n\n${README_BEGIN}\nold\n${README_END}\n\nafter\n`;
    const updated = withReadmeBlock(readme, readmeBlock(run));
    expect(updated).toContain('commit `abc1234`, 2026-12-01');
    expect(updated).toContain('| behaviour.ts | 2 | 1 | 0 | 0 | 0 | 0 | 1 | 50.0 % |');
    expect(updated?.endsWith('\n\nafter\n')).toBe(true);
    expect(withReadmeBlock('# no block', 'x')).toBeUndefined();
  });
});

describe('the runs the runner makes', () => {
  it('points the CLI only at a server that reported a usable address and key', () => {
    const line = { baseUrl: 'http://127.0.0.1:4100/v1', apiKey: 'psk_free_x', args: [] };
    expect(targetLineProblem(line)).toBeUndefined();
    // An emptied address would make the CLI judge its own embedded server; a mangled one, exit 2: neither is the mutant's verdict.
    for (const baseUrl of ['', 'http://:/v1', 'http://127.0.0.1/v1', 'localhost:4100', '`http://127.0.0.1:4100/v1`']) expect(targetLineProblem({ ...line, baseUrl }), baseUrl).toMatch(/no usable base URL/);
    expect(targetLineProblem({ ...line, apiKey: '' })).toMatch(/no API key/);
  });

  it('adds every extra flag, but --risk-breaking-store beside --exhaust-daily-quota, which the CLI refuses together', () => {
    expect(extraFlagsBeside(['--plan', 'free'])).toEqual([...EXTRA_FLAGS]);
    expect(extraFlagsBeside(['--plan', 'free', '--exhaust-daily-quota'])).toEqual(EXTRA_FLAGS.filter((f) => f !== '--risk-breaking-store'));
    expect(EXTRA_FLAGS).toContain('--risk-breaking-store');
  });

  it('runs a mutant\'s tests a few at a time, in order, and aborts the rest at the first decisive one', async () => {
    const log: string[] = [];
    // Each fake test ends when the test says so, never by a timer: the order holds however slow the machine. 'kill' is decisive.
    const finishers = new Map<string, (result: string) => void>();
    const run = (name: string, signal: AbortSignal): Promise<string> =>
      new Promise((resolve) => {
        log.push(`start ${name}`);
        const onAbort = (): void => (log.push(`abort ${name}`), resolve(`aborted ${name}`));
        finishers.set(name, (result) => (signal.removeEventListener('abort', onAbort), resolve(result)));
        signal.addEventListener('abort', onAbort, { once: true });
      });
    const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
    const finish = async (name: string): Promise<void> => {
      finishers.get(name)?.(name);
      await settle();
    };
    const searching = firstDecisive(['a', 'b', 'kill', 'c', 'd'], 2, run, (r) => r.startsWith('kill'));
    await settle();
    expect(log).toEqual(['start a', 'start b']);
    // kill takes a's lane when a ends, and decides while b still runs: b is aborted, c and d never start.
    await finish('a');
    expect(log).toEqual(['start a', 'start b', 'start kill']);
    await finish('kill');
    const found = await searching;
    expect(found.decided).toEqual({ item: 'kill', result: 'kill' });
    expect(log).toEqual(['start a', 'start b', 'start kill', 'abort b']);
    expect(found.started).toBe(3);
    const none = firstDecisive(['x', 'y', 'z'], 3, run, (r) => r.startsWith('kill'));
    await settle();
    for (const name of ['x', 'y', 'z']) await finish(name);
    expect(await none).toEqual({ started: 3 });
    await expect(firstDecisive(['a5'], 2, () => Promise.reject(new Error('no server')), () => true)).rejects.toThrow('no server');
  });

  it('lets no more than the slots\' count hold one at once, and takes over a slot whose owner is gone', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pc-slots-'));
    const first = await takeSlot(dir, 2);
    const second = await takeSlot(dir, 2);
    expect(first).toBeDefined();
    expect(second).toBeDefined();
    // A third waits while both are held: here until its signal gives up.
    const waiting = new AbortController();
    const third = takeSlot(dir, 2, waiting.signal);
    let settled = false;
    void third.then(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(settled).toBe(false);
    waiting.abort();
    expect(await third).toBeUndefined();
    // Released, the slot is free again.
    await first?.();
    const again = await takeSlot(dir, 2);
    expect(again).toBeDefined();
    // A second release of the first (a run whose slot was released early, ending) frees nothing
    // of the slot's new holder: with both still held, a third still waits.
    await first?.();
    const afterDouble = new AbortController();
    const fourth = takeSlot(dir, 2, afterDouble.signal);
    await new Promise((resolve) => setTimeout(resolve, 200));
    afterDouble.abort();
    expect(await fourth).toBeUndefined();
    await again?.();
    await second?.();
    expect(await readdir(dir)).toEqual([]);
    // Both held by a process that no longer exists (pid 2^22 + 1 is above Linux's pid_max): taken over.
    for (const slot of ['slot-0', 'slot-1']) await writeFile(join(dir, slot), String(2 ** 22 + 1));
    const taken = await takeSlot(dir, 2);
    expect(taken).toBeDefined();
    await taken?.();
    await rm(dir, { recursive: true, force: true });
  });
});
