/**
 * The timeline's pure geometry: long idle stretches collapsed (monotonic, gaps narrow, bursts wide)
 * and finding labels placed without any two overlapping, nor overlapping an obstacle.
 */
import { describe, expect, it } from 'vitest';
import { axisTicks, collapsedAxis, overlaps, placeLabels, tickText, toDisplay } from '../src/report/timeline-layout.js';

describe('collapsedAxis', () => {
  it('a 60 s window: the 58 s wait becomes one narrow gap, the bursts keep their scale', () => {
    const busy = [...Array.from({ length: 110 }, (_, i) => [i * 0.005, i * 0.005 + 0.004] as const), [58.9, 59] as const];
    const axis = collapsedAxis(busy, 60, 862);
    expect(axis.gaps).toHaveLength(1);
    const gap = axis.gaps[0];
    // 8 px of idle kept drawn on each side of the band: the last mark before it, the first after it clear of its edges.
    const px = (s: number): number => (toDisplay(axis, s) / axis.end) * 862;
    expect(px(gap?.from ?? 0) - px(0.549)).toBeCloseTo(8, 6);
    expect(px(58.9) - px(gap?.to ?? 0)).toBeCloseTo(8, 6);
    expect(gap?.from).toBeGreaterThan(0.549);
    expect(gap?.to).toBeLessThan(58.9);
    // The gap is 96 px of 862, the rest is the bursts.
    expect((gap?.width ?? 0) / axis.end).toBeCloseTo(96 / 862, 5);
    expect(toDisplay(axis, 0.5)).toBe(0.5);
    expect(toDisplay(axis, 59) - toDisplay(axis, 58.9)).toBeCloseTo(0.1, 9);
    const samples = [0, 0.5, 0.8, 10, 30, 58.65, 58.7, 60].map((s) => toDisplay(axis, s));
    for (let i = 1; i < samples.length; i += 1) expect(samples[i]).toBeGreaterThan(samples[i - 1] ?? Infinity);
    expect(axisTicks(axis).every((t) => t <= (gap?.from ?? 0) || t >= (gap?.to ?? 0))).toBe(true);
    // The margin after the last request is the share of the drawn axis it was of the real one (1 s of 59).
    expect((axis.end - toDisplay(axis, 59)) / toDisplay(axis, 59)).toBeCloseTo(1 / 59, 9);
    expect(axis.endS).toBeLessThan(59.1);
  });

  it('a run that ended waiting: the idle stretch after its last request is collapsed too, the axis ending with it', () => {
    const axis = collapsedAxis([[0, 1], [2, 3]], 40, 862);
    expect(axis.gaps).toHaveLength(1);
    expect(axis.gaps[0]?.to).toBe(40);
    expect(axis.endS).toBe(40);
    expect(axis.end).toBeCloseTo((axis.gaps[0]?.at ?? 0) + (axis.gaps[0]?.width ?? 0), 9);
  });

  it('short windows (waits under 10 s): nothing collapsed', () => {
    const axis = collapsedAxis([[0, 1], [4, 5], [8, 9]], 9.5, 862);
    expect(axis.gaps).toEqual([]);
    expect(toDisplay(axis, 7)).toBe(7);
  });
});

describe('axisTicks', () => {
  /** No two labels closer than half their widths each (7 px a character of "12.5 s", as laid out) and 12 px. */
  const apart = (axis: ReturnType<typeof collapsedAxis>, ticks: readonly number[]): boolean =>
    ticks.every((t, i) => {
      const before = ticks[i - 1];
      if (before === undefined) return true;
      const px = (s: number): number => (toDisplay(axis, s) / axis.end) * axis.plotPx;
      return px(t) - px(before) >= (tickText(t).length + tickText(before).length) * 3.5 + 12;
    });

  it('a burst, a collapsed wait, a burst: round seconds on both sides (0 s, 1 s \u2026 then 58 s, 59 s), none inside the band', () => {
    const axis = collapsedAxis([[0, 0.8], [0.9, 4], [57.5, 58], [58.2, 59.5]], 60.7, 862);
    expect(axis.gaps).toHaveLength(1);
    const ticks = axisTicks(axis);
    expect(ticks).toEqual([0, 1, 2, 3, 4, 58, 59]);
    expect(ticks.map(tickText)).toEqual(['0 s', '1 s', '2 s', '3 s', '4 s', '58 s', '59 s']);
    expect(apart(axis, ticks)).toBe(true);
  });

  it('a piece after the band too short for the step still gets one tick, of a finer round step', () => {
    const busy = [...Array.from({ length: 110 }, (_, i) => [i * 0.005, i * 0.005 + 0.004] as const), [58.9, 59] as const];
    const axis = collapsedAxis(busy, 60, 862);
    const ticks = axisTicks(axis);
    expect(ticks).toEqual([0, 0.1, 0.2, 0.3, 0.4, 0.5, 58.9, 59]);
    expect(apart(axis, ticks)).toBe(true);
    // Seconds past the band a finer step than 0.1 s would need: 58.93 s only, nearest the middle of what is drawn there.
    const late = collapsedAxis([[0, 0.5], [58.92, 58.94]], 58.99, 862);
    const after = axisTicks(late).filter((t) => t > 1);
    expect(after).toHaveLength(1);
    expect(after[0]).toBeGreaterThanOrEqual(late.gaps[0]?.to ?? Infinity);
    expect(Math.round((after[0] ?? 0) * 100)).toBeCloseTo((after[0] ?? 0) * 100, 9);
  });

  it('many bands: a tick after each, none overlapping another across a band', () => {
    const busy: Array<[number, number]> = [];
    for (let w = 0; w < 6; w += 1) for (let i = 0; i < 60; i += 1) busy.push([w * 60 + i * 0.01, w * 60 + i * 0.01 + 0.008]);
    const axis = collapsedAxis(busy, 5 * 60 + 1, 862);
    expect(axis.gaps).toHaveLength(5);
    const ticks = axisTicks(axis);
    expect(apart(axis, ticks)).toBe(true);
    for (const gap of axis.gaps) expect(ticks.some((t) => t >= gap.to && t <= gap.to + 1)).toBe(true);
  });

  it('short windows: the usual round ticks', () => {
    const axis = collapsedAxis([[0, 1], [4, 5], [8, 9]], 9.5, 862);
    expect(axisTicks(axis)).toEqual([0, 2, 4, 6, 8]);
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
