/**
 * The model-based sequence machinery (src/conformance/sequence.ts) on a toy store behind a fake
 * client: fixed sequences first, the first failing sequence ends the run of sequences and is
 * shrunk to the shortest that still breaks the same requirement, shrinking is bounded, the
 * failing sequence reads as numbered steps with curl lines, and a saved sequence is replayed
 * command by command. The pet store's own commands are exercised by whole runs
 * (test/model-sequences.test.ts).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { runSequences, SHRINK_REQUESTS, type SequenceDriver, type SequenceOp, type SequenceSpec } from '../src/conformance/sequence.js';
import type { RequirementRun } from '../src/conformance/requirement-test.js';
import { violation } from '../src/checks/finding.js';
import type { SendRequest } from '../src/http/client.js';
import type { Exchange } from '../src/http/exchange.js';
import { BudgetExhaustedError } from '../src/http/errors.js';
import type { SequenceCommand } from '../src/report/types.js';
import { makeExchange } from './support/exchange-factory.js';

/** The model: the values this sequence added, each with the index the store gave it (the store outlives a sequence). */
interface Toy {
  items: Array<{ value: number; at: number }>;
}

/**
 * A store of numbers: POST /items adds one, GET /items/{i} reads the i-th. `bug` decides what a
 * read answers instead of the stored value, from the store's content (undefined: the truth).
 */
class ToyServer {
  readonly items: number[] = [];
  readonly sent: string[] = [];
  seq = 0;
  budget = Number.POSITIVE_INFINITY;

  constructor(readonly bug: (items: readonly number[], index: number) => number | undefined = () => undefined) {}

  run(): RequirementRun {
    const send = (request: SendRequest): Promise<Exchange> => {
      if (this.sent.length >= this.budget) return Promise.reject(new BudgetExhaustedError(this.budget));
      this.sent.push(`${request.method} ${request.path}`);
      const seq = ++this.seq;
      if (request.method === 'POST') {
        this.items.push(Number(request.body));
        return Promise.resolve(makeExchange({ seq, method: 'POST', target: request.path, status: 201, json: { index: this.items.length - 1 } }));
      }
      const index = Number(request.path.split('/').at(-1));
      const value = this.bug(this.items, index) ?? this.items[index];
      return Promise.resolve(makeExchange({ seq, target: request.path, json: { value } }));
    };
    return { send } as unknown as RequirementRun;
  }
}

class Add implements SequenceOp<Toy> {
  constructor(readonly value: number) {}
  check(): boolean {
    return true;
  }
  async run(model: Toy, driver: SequenceDriver): Promise<void> {
    const ex = await driver.send({ method: 'POST', path: '/items', body: String(this.value) });
    model.items.push({ value: this.value, at: (JSON.parse(ex.response?.bodyText ?? '{}') as { index: number }).index });
    driver.record({ operation: 'add', command: { op: 'createPet', name: String(this.value), categoryId: '0' }, sent: `POST /items ${this.value}`, received: ex.response?.bodyText ?? '', expected: '201', exchanges: [ex], findings: [] });
  }
  toString(): string {
    return `add(${this.value})`;
  }
}

class Read implements SequenceOp<Toy> {
  constructor(
    readonly pick: number,
    /** The requirement a wrong value breaks. */
    readonly requirement = 'TOY-001',
  ) {}
  check(model: Readonly<Toy>): boolean {
    return model.items.length > 0;
  }
  async run(model: Toy, driver: SequenceDriver): Promise<void> {
    const index = this.pick % model.items.length;
    const item = model.items[index];
    if (item === undefined) return;
    const ex = await driver.send({ method: 'GET', path: `/items/${item.at}` });
    const got = (JSON.parse(ex.response?.bodyText ?? '{}') as { value?: number }).value;
    const findings = got === item.value ? [] : [violation(this.requirement, `item ${index}: received ${got}, expected ${item.value}`, ex.seq)];
    driver.record({ operation: 'read', command: { op: 'getPet', pet: index }, sent: `GET /items/${index}`, received: String(got), expected: String(item.value), exchanges: [ex], findings });
  }
  toString(): string {
    return `read(${this.pick})`;
  }
}

function spec(overrides: Partial<SequenceSpec<Toy>> = {}): SequenceSpec<Toy> {
  return {
    model: () => ({ items: [] }),
    commands: [fc.integer({ min: 0, max: 9 }).map((v) => new Add(v)), fc.nat().map((p) => new Read(p))],
    maxCommands: 8,
    examples: [],
    fromRecord: (record: SequenceCommand) => (record.op === 'createPet' ? new Add(Number(record.name)) : new Read(record.op === 'getPet' ? record.pet : 0)),
    sequences: 10,
    seed: 42,
    judged: () => true,
    ...overrides,
  };
}

/** An item reads wrong once two more were added after it: only a sequence of four steps or more shows it. */
const afterThreeAdds = (items: readonly number[], index: number): number | undefined => (items.length - index >= 3 ? -1 : undefined);

describe('runSequences', () => {
  it('runs nothing when the plan has room for no sequence', async () => {
    const server = new ToyServer();
    const outcome = await runSequences(server.run(), spec({ sequences: 0, examples: [{ label: 'fixed', commands: [new Add(1), new Read(0)] }] }));
    expect(server.sent).toEqual([]);
    expect(outcome).toMatchObject({ sequences: 0, steps: 0, findings: [] });
  });

  it('sends the fixed sequences first, then the random ones, as many as planned, and finds nothing on a correct store', async () => {
    const server = new ToyServer();
    const outcome = await runSequences(server.run(), spec({ sequences: 5, examples: [{ label: 'fixed', commands: [new Add(7), new Read(0), new Read(0)] }] }));
    expect(server.sent.slice(0, 3)).toEqual(['POST /items', 'GET /items/0', 'GET /items/0']);
    expect(server.sent.length).toBeGreaterThan(3);
    expect(outcome.sequences).toBe(5);
    expect(outcome.failure).toBeUndefined();
    expect(outcome.findings).toEqual([]);
  });

  it('shrinks a random failing sequence to the shortest that breaks the same requirement, as numbered steps with curl lines', async () => {
    const server = new ToyServer(afterThreeAdds);
    const outcome = await runSequences(server.run(), spec({ sequences: 50 }));
    const failure = outcome.failure;
    expect(failure?.requirement).toBe('TOY-001');
    const steps = failure?.record.steps ?? [];
    // Three adds and the read of the first item: nothing shorter shows it.
    expect(steps.map((s) => s.operation)).toEqual(['add', 'add', 'add', 'read']);
    expect(steps.map((s) => s.n)).toEqual([1, 2, 3, 4]);
    expect(steps.slice(0, 3).every((s) => s.violations === undefined)).toBe(true);
    expect(steps[3]?.violations).toEqual(['item 0: received -1, expected ' + String(failure?.record.commands[0]?.op === 'createPet' ? failure.record.commands[0].name : '?')]);
    for (const step of steps) expect(step.curl).toEqual([expect.stringMatching(/^curl /)]);
    expect(failure?.record.commands.map((c) => c.op)).toEqual(['createPet', 'createPet', 'createPet', 'getPet']);
    expect(failure?.record.path).not.toBe('');
    expect(failure?.record.label).toMatch(/^random sequence \(seed 42, shrunk\)$/);
    // The findings name the sequence and the step, and belong to the requirement the step broke.
    expect(outcome.findings).toHaveLength(1);
    expect(outcome.findings[0]?.message).toMatch(/^random sequence \(seed 42, shrunk\), step 4 of 4: item 0: received -1/);
    // The first failing sequence ends the run of sequences: no more were started after it.
    expect(outcome.sequences).toBeLessThan(50);
    expect(failure?.record.sequencesRun).toBe(outcome.sequences);
  });

  it('removes the steps a failing fixed sequence does not need, and runs no random one after it', async () => {
    const server = new ToyServer(afterThreeAdds);
    const fixed = [new Add(1), new Read(0), new Add(2), new Read(0), new Add(3), new Read(0), new Add(4)];
    const outcome = await runSequences(server.run(), spec({ sequences: 10, examples: [{ label: 'read-after-write', commands: fixed }] }));
    expect(outcome.sequences).toBe(1);
    expect(outcome.failure?.record.label).toBe('fixed sequence read-after-write (shrunk)');
    expect(outcome.failure?.record.steps.map((s) => s.sent)).toEqual(['POST /items 1', 'POST /items 2', 'POST /items 3', 'GET /items/0']);
    expect(outcome.failure?.record.path).toBe('');
  });

  it('spends at most SHRINK_REQUESTS on shrinking, however long the failing sequence', async () => {
    // An item reads wrong only once four more were added after it: long sequences, costly to shrink.
    const server = new ToyServer((items, index) => (items.length - index >= 5 ? -1 : undefined));
    const outcome = await runSequences(server.run(), spec({ sequences: 300, maxCommands: 12 }));
    expect(outcome.failure?.requirement).toBe('TOY-001');
    // Every request beyond the sequences' own steps was shrinking's; the last attempt may start just under the bound.
    expect(server.sent.length - outcome.steps).toBeGreaterThan(0);
    expect(server.sent.length - outcome.steps).toBeLessThanOrEqual(SHRINK_REQUESTS + 12);
  });

  it('neither reports nor stops at a violation of a requirement the run does not judge', async () => {
    const server = new ToyServer(afterThreeAdds);
    const unjudged = [new Add(1), new Add(2), new Add(3), new Read(0, 'TOY-002'), new Read(0, 'TOY-001')];
    const outcome = await runSequences(server.run(), spec({ sequences: 1, examples: [{ label: 'f', commands: unjudged }], judged: (id) => id === 'TOY-001' }));
    expect(outcome.failure?.requirement).toBe('TOY-001');
    expect(outcome.findings.map((f) => f.requirement)).toEqual(['TOY-001']);
  });

  it('replays a saved sequence command by command, and says when it could not be followed', async () => {
    const saved: SequenceCommand[] = [
      { op: 'createPet', name: '5', categoryId: '0' },
      { op: 'createPet', name: '6', categoryId: '0' },
      { op: 'createPet', name: '7', categoryId: '0' },
      { op: 'getPet', pet: 0 },
    ];
    const broken = new ToyServer(afterThreeAdds);
    const again = await runSequences(broken.run(), spec({ replay: saved, examples: [{ label: 'never', commands: [new Read(0)] }] }));
    expect(broken.sent).toEqual(['POST /items', 'POST /items', 'POST /items', 'GET /items/0']);
    expect(again.failure?.record.label).toBe('replayed sequence');
    const fixed = new ToyServer();
    const ok = await runSequences(fixed.run(), spec({ replay: saved }));
    expect(ok).toMatchObject({ replayed: true, sequences: 1, steps: 4 });
    expect(ok.failure).toBeUndefined();
    expect(ok.unfollowed).toBeUndefined();
    // A read with no item to read cannot run: the replay says so rather than "fixed".
    const unfollowable = await runSequences(new ToyServer().run(), spec({ replay: [{ op: 'getPet', pet: 0 }] }));
    expect(unfollowable.unfollowed).toMatch(/^1 of its 1 commands could not run/);
  });

  it('stops without a verdict at a 429 that got through the client\'s retries', async () => {
    const server = new ToyServer(afterThreeAdds);
    const run = server.run();
    const throttled = {
      send: async (request: SendRequest) => (server.sent.length === 3 ? makeExchange({ seq: 99, target: request.path, status: 429, body: '' }) : run.send(request)),
    } as unknown as RequirementRun;
    const outcome = await runSequences(throttled, spec({ sequences: 3, examples: [{ label: 'f', commands: [new Add(1), new Add(2), new Add(3), new Read(0)] }] }));
    expect(outcome.stopped).toMatch(/exchange #99 was answered 429/);
    expect(outcome.failure).toBeUndefined();
    expect(outcome.findings).toEqual([]);
  });

  it('stops without a verdict when the client stops sending (budget, halt)', async () => {
    const server = new ToyServer(afterThreeAdds);
    server.budget = 2;
    const outcome = await runSequences(server.run(), spec({ sequences: 3, examples: [{ label: 'f', commands: [new Add(1), new Add(2), new Add(3), new Read(0)] }] }));
    expect(outcome.stopped).toMatch(/request budget exhausted/);
    expect(outcome.failure).toBeUndefined();
  });
});
