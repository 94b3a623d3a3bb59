/**
 * The CLI prepares report.html's charting library while the run waits on the rate limit
 * (src/cli/run-command.ts, preparingChart): only when report.html is written, only on a long
 * wait, once, and without keeping any progress event from the terminal.
 */
import { describe, expect, it, vi } from 'vitest';
import type { ProgressEvent } from '../src/conformance/progress.js';

const prepared = vi.hoisted(() => ({ calls: 0 }));
vi.mock('../src/report/render/timeline-chart.js', () => ({
  prepareTimelineChart: () => {
    prepared.calls += 1;
    return Promise.resolve();
  },
}));

const { preparingChart } = await import('../src/cli/run-command.js');

const wait = (ms: number): ProgressEvent => ({ kind: 'wait', ms, reason: 'Retry-After of the last 429', requests: 3 });

describe('preparing the timeline\'s charting library during the run', () => {
  it('leaves a run that writes no report.html as it is', () => {
    const progress = { onProgress: vi.fn() };
    expect(preparingChart(progress, ['json', 'junit'])).toBe(progress);
  });

  it('starts once, on the first wait of half a second or more, and passes every event on', () => {
    prepared.calls = 0;
    const seen: ProgressEvent[] = [];
    const listener = preparingChart({ onProgress: (e) => seen.push(e) }, ['json', 'html']);
    const events: ProgressEvent[] = [{ kind: 'requests', requests: 1 }, wait(100), wait(499), wait(1_200), wait(65_000)];
    for (const event of events) listener.onProgress?.(event);
    expect(seen).toEqual(events);
    expect(prepared.calls).toBe(1);
  });
});
