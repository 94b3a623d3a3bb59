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

const wait = (ms: number, reason = 'Retry-After of the last 429'): ProgressEvent => ({ kind: 'wait', ms, reason, requests: 3 });

describe('preparing the timeline\'s charting library during the run', () => {
  it('leaves a run that writes no report.html as it is', () => {
    const progress = { onProgress: vi.fn() };
    expect(preparingChart(progress, ['json', 'junit'])).toBe(progress);
  });

  it('starts once, on the first wait of half a second or more after a 429, and passes every event on', () => {
    prepared.calls = 0;
    const seen: ProgressEvent[] = [];
    const listener = preparingChart({ onProgress: (e) => seen.push(e) }, ['json', 'html']);
    // Before the burst, or for the next window: requests follow at once, which the embedded server answers on this thread.
    const busy: ProgressEvent[] = [{ kind: 'requests', requests: 1 }, wait(100), wait(499), wait(2_000, 'too little of the window is left for the burst'), wait(900, '3 cases sent together wait for the next rate-limit window, which can take them whole')];
    for (const event of busy) listener.onProgress?.(event);
    expect(prepared.calls).toBe(0);
    const idle: ProgressEvent[] = [wait(1_200), wait(65_000, '429 on exchange 75: waiting before the single retry')];
    for (const event of idle) listener.onProgress?.(event);
    expect(seen).toEqual([...busy, ...idle]);
    expect(prepared.calls).toBe(1);
  });
});
