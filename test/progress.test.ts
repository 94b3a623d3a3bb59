/**
 * The live channel from the worker: vitest may hand the reporter several console lines as one
 * log, and every event in it must reach the terminal (a lost cost line hid --exhaust-daily-quota's price).
 */
import { describe, expect, it } from 'vitest';
import { decodeProgress, encodeProgress } from '../src/conformance/progress.js';

describe('decodeProgress', () => {
  it('decodes every event of a batched log, in order', () => {
    const note = { kind: 'note', message: 'cost first', requests: 3, always: true } as const;
    const count = { kind: 'requests', requests: 4 } as const;
    const { events, output } = decodeProgress(`${encodeProgress(note)}\n${encodeProgress(count)}\n`);
    expect(events).toEqual([note, count]);
    expect(output).toBe('');
  });

  it('keeps the ordinary lines around events, and leaves a log without events untouched', () => {
    const wait = { kind: 'wait', ms: 10, reason: 'r', requests: 1 } as const;
    expect(decodeProgress(`hello\n${encodeProgress(wait)}\nworld\n`)).toEqual({ events: [wait], output: 'hello\nworld\n' });
    expect(decodeProgress('plain text\n\n')).toEqual({ events: [], output: 'plain text\n\n' });
  });

  it('treats a damaged tagged line as ordinary output rather than dropping it', () => {
    const damaged = `${encodeProgress({ kind: 'requests', requests: 1 }).slice(0, -3)}\n`;
    expect(decodeProgress(damaged)).toEqual({ events: [], output: damaged });
  });
});
