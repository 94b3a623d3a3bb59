/**
 * The timeline's pure geometry: long idle stretches collapsed (monotonic, gaps narrow, bursts wide)
 * and finding labels placed without any two overlapping, nor overlapping an obstacle.
 */
import { describe, expect, it } from 'vitest';
import { axisTicks, collapsedAxis, overlaps, placeLabels, toDisplay } from '../src/report/timeline-layout.js';

describe('collapsedAxis', () => {
  it('a 60 s window: the 58 s wait becomes one narrow gap, the bursts keep their scale', () => {
    const busy = [...Array.from({ length: 110 }, (_, i) => [i * 0.005, i * 0.005 + 0.004] as const), [58.9, 59] as const];
    const axis = collapsedAxis(busy, 60, 862);
    expect(axis.gaps).toHaveLength(1);
    const gap = axis.gaps[0];
    expect(gap?.from).toBeCloseTo(0.799, 3);
    expect(gap?.to).toBeCloseTo(58.65, 3);
    // The gap is 96 px of 862, the rest is the bursts.
    expect((gap?.width ?? 0) / axis.end).toBeCloseTo(96 / 862, 5);
    expect(toDisplay(axis, 0.5)).toBe(0.5);
    expect(toDisplay(axis, 59) - toDisplay(axis, 58.9)).toBeCloseTo(0.1, 9);
    const samples = [0, 0.5, 0.8, 10, 30, 58.65, 58.7, 60].map((s) => toDisplay(axis, s));
    for (let i = 1; i < samples.length; i += 1) expect(samples[i]).toBeGreaterThan(samples[i - 1] ?? Infinity);
    expect(axisTicks(axis).every((t) => t <= (gap?.from ?? 0) || t >= (gap?.to ?? 0))).toBe(true);
  });

  it('short windows (waits under 10 s): nothing collapsed', () => {
    const axis = collapsedAxis([[0, 1], [4, 5], [8, 9]], 9.5, 862);
    expect(axis.gaps).toEqual([]);
    expect(toDisplay(axis, 7)).toBe(7);
  });
});

describe('placeLabels', () => {
  const strip = { left: 0, right: 800, bottom: 100, rowHeight: 16 };

  it('labels at the same anchor (F1, F2, F3 on one column) are stacked, none overlapping', () => {
    const placed = placeLabels([{ anchor: 10, width: 20 }, { anchor: 10, width: 20 }, { anchor: 11, width: 60 }, { anchor: 400, width: 20 }], strip);
    for (const [i, a] of placed.entries()) for (const b of placed.slice(i + 1)) expect(overlaps(a, b)).toBe(false);
    expect(placed.map((p) => p.row)).toEqual([0, 1, 2, 0]);
    // Kept inside the strip, centred on the anchor where there is room.
    expect(placed[0]?.x).toBe(0);
    expect(placed[3]?.x).toBe(390);
  });

  it('an obstacle (a lane label) is never overlapped', () => {
    const obstacle = { x: 0, y: 84, width: 140, height: 16 };
    const placed = placeLabels([{ anchor: 100, width: 30 }, { anchor: 120, width: 30 }], strip, [obstacle]);
    for (const p of placed) expect(overlaps(p, obstacle)).toBe(false);
    expect(overlaps(placed[0] ?? obstacle, placed[1] ?? obstacle)).toBe(false);
  });
});
