/**
 * The timeline picture's geometry, pure: the x axis with the long idle waits collapsed (a Free
 * key's 60 s window leaves a burst of a second or two and a wait of nearly a minute; drawn to scale
 * every burst is one column), and the finding labels placed so that no two overlap.
 */

/** An idle stretch of at least this long (seconds, no request in flight) is drawn collapsed. */
export const COLLAPSE_MIN_S = 10;
/** Idle time kept drawn on each side of a collapsed stretch, so marks do not touch its band. */
const COLLAPSE_MARGIN_S = 0.25;
/** The width (px) a collapsed stretch is drawn with: room for its label. */
const GAP_PX = 96;
/** At most this share of the plot goes to collapsed stretches, however many there are. */
const GAP_SHARE = 0.4;

export interface AxisGap {
  /** Seconds after the first request: the stretch left out. */
  from: number;
  to: number;
  /** Where it is drawn, in display units, and how wide. */
  at: number;
  width: number;
}

/** Real seconds to display units: linear, except in each gap, where a long stretch is squeezed into a short one. */
export interface CollapsedAxis {
  gaps: AxisGap[];
  /** The axis' end, in display units. */
  end: number;
  /** The real end, in seconds. */
  endS: number;
}

/**
 * `busy`: the moments something was in flight, [from, to] in seconds; `endS`: the axis' real end;
 * `plotPx`: the plot's width, so that each collapsed stretch gets GAP_PX of it.
 */
export function collapsedAxis(busy: ReadonlyArray<readonly [number, number]>, endS: number, plotPx: number): CollapsedAxis {
  const sorted = [...busy].sort((a, b) => a[0] - b[0]);
  const idle: Array<[number, number]> = [];
  let reached = Number.NEGATIVE_INFINITY;
  for (const [from, to] of sorted) {
    if (reached !== Number.NEGATIVE_INFINITY && from - reached >= COLLAPSE_MIN_S) idle.push([reached + COLLAPSE_MARGIN_S, from - COLLAPSE_MARGIN_S]);
    reached = Math.max(reached, to);
  }
  if (idle.length === 0) return { gaps: [], end: endS, endS };
  const active = endS - idle.reduce((sum, [from, to]) => sum + (to - from), 0);
  const gapPx = Math.min(GAP_PX, (GAP_SHARE * plotPx) / idle.length);
  // width / (active + n·width) = gapPx / plotPx
  const width = (gapPx * active) / (plotPx - idle.length * gapPx);
  const gaps: AxisGap[] = [];
  let shift = 0;
  for (const [from, to] of idle) {
    gaps.push({ from, to, at: from - shift, width });
    shift += to - from - width;
  }
  return { gaps, end: endS - shift, endS };
}

/** A moment (seconds after the first request) in display units. */
export function toDisplay(axis: CollapsedAxis, s: number): number {
  let shift = 0;
  for (const g of axis.gaps) {
    if (s <= g.from) break;
    if (s < g.to) return g.at + ((s - g.from) / (g.to - g.from)) * g.width;
    shift += g.to - g.from - g.width;
  }
  return s - shift;
}

/** Round moments for the axis' labels, none inside a gap, about `count` over the drawn part. */
export function axisTicks(axis: CollapsedAxis, count = 8): number[] {
  const activeS = axis.end - axis.gaps.reduce((sum, g) => sum + g.width, 0);
  const step = niceStep(activeS / count);
  const minDisplay = axis.end / (count * 1.8);
  const pieces: Array<[number, number]> = [];
  let from = 0;
  for (const g of axis.gaps) {
    pieces.push([from, g.from]);
    from = g.to;
  }
  pieces.push([from, axis.endS]);
  const ticks: number[] = [];
  for (const [a, b] of pieces) {
    const candidates = [a, ...range(Math.ceil(a / step) * step, b, step)];
    for (const t of candidates) {
      const last = ticks[ticks.length - 1];
      if (t > b || (last !== undefined && toDisplay(axis, t) - toDisplay(axis, last) < minDisplay)) continue;
      ticks.push(round(t));
    }
  }
  return ticks;
}

const round = (s: number): number => Math.round(s * 1000) / 1000;

function range(from: number, below: number, step: number): number[] {
  const out: number[] = [];
  for (let t = from; t < below; t += step) out.push(t);
  return out;
}

function niceStep(raw: number): number {
  if (!(raw > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(raw));
  const m = raw / power;
  return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * power;
}

/** A box in pixels, top-left and size. */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface LabelRequest {
  /** The x (px) the label belongs to: centred on it when there is room. */
  anchor: number;
  width: number;
}

export interface PlacedLabel extends Box {
  /** Its row: 0 nearest the bottom of the strip. */
  row: number;
}

/** Where labels may go: between left and right, in rows stacked upward from `bottom`. */
export interface LabelStrip {
  left: number;
  right: number;
  bottom: number;
  rowHeight: number;
}

/** Space kept between two labels side by side. */
const LABEL_PAD = 6;

export function overlaps(a: Box, b: Box, pad = 0): boolean {
  return a.x < b.x + b.width + pad && b.x < a.x + a.width + pad && a.y < b.y + b.height && b.y < a.y + a.height;
}

/**
 * Each label in the lowest row where it overlaps neither a label placed before it nor an obstacle,
 * as near its anchor as the strip allows. Labels are placed in order of their anchors, so the
 * result does not depend on the order they are given in (returned in that order).
 */
export function placeLabels(labels: readonly LabelRequest[], strip: LabelStrip, obstacles: readonly Box[] = []): PlacedLabel[] {
  const placed: PlacedLabel[] = new Array<PlacedLabel>(labels.length);
  const taken: Box[] = [];
  const order = labels.map((_, i) => i).sort((a, b) => (labels[a]?.anchor ?? 0) - (labels[b]?.anchor ?? 0));
  for (const i of order) {
    const label = labels[i];
    if (label === undefined) continue;
    const x = Math.max(strip.left, Math.min(label.anchor - label.width / 2, strip.right - label.width));
    for (let row = 0; ; row += 1) {
      const box = { x, y: strip.bottom - (row + 1) * strip.rowHeight, width: label.width, height: strip.rowHeight };
      if (taken.some((t) => overlaps(box, t, LABEL_PAD)) || obstacles.some((o) => overlaps(box, o))) continue;
      placed[i] = { ...box, row };
      taken.push(box);
      break;
    }
  }
  return placed;
}
