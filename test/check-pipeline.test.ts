/**
 * CheckPipeline: every exchange reaches the observers before the checks, the checks see the
 * server's clock with this exchange's Date already read, and their findings reach the ledger in
 * the order the checks were registered.
 */
import { describe, expect, it } from 'vitest';
import { CheckPipeline, type CheckContext } from '../src/session/check-pipeline.js';
import { observation, type Finding } from '../src/checks/finding.js';
import type { Exchange } from '../src/http/exchange.js';
import { makeExchange } from './support/exchange-factory.js';

describe('CheckPipeline', () => {
  it('observers first, then each check in registration order, its findings recorded in that order', () => {
    const recorded: Finding[] = [];
    const events: string[] = [];
    const record: Exchange[] = [];
    const pipeline = new CheckPipeline((findings) => recorded.push(...findings), () => record);
    pipeline.observe((ex) => events.push(`observer ${ex.seq}`));
    pipeline.register(
      (ex) => {
        events.push(`first ${ex.seq}`);
        return [observation('REQ-A', 'first', ex.seq)];
      },
      (ex) => {
        events.push(`second ${ex.seq}`);
        return [observation('REQ-B', 'second', ex.seq)];
      },
    );
    const ex = makeExchange({ seq: 7 });
    record.push(ex);
    pipeline.inspect(ex);
    expect(events).toEqual(['observer 7', 'first 7', 'second 7']);
    expect(recorded.map((f) => [f.requirement, f.exchange])).toEqual([
      ['REQ-A', 7],
      ['REQ-B', 7],
    ]);
  });

  it("a check reads the run's record and a clock that has this exchange's Date", () => {
    const record: Exchange[] = [];
    const pipeline = new CheckPipeline(() => undefined, () => record);
    const seen: CheckContext[] = [];
    pipeline.register((_ex, context) => {
      seen.push(context);
      return [];
    });
    expect(pipeline.clock).toBeUndefined();
    const ex = makeExchange({ seq: 1 });
    record.push(ex);
    pipeline.inspect(ex);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.exchanges).toBe(record);
    expect(seen[0]?.clock).toBeDefined();
    expect(seen[0]?.clock).toEqual(pipeline.clock);
  });
});
