/**
 * The timeline picture's geometry, pure: the x axis with the long idle waits collapsed (a Free
 * key's 60 s window leaves a burst of a second or two and a wait of nearly a minute; drawn to scale
 * every burst is one column), and the finding labels placed so that no two overlap.
 */

/** An idle stretch of at least this long (seconds, no request in flight) is drawn collapsed. */
export const COLLAPSE_MIN_S = 10;
/** Idle time kept drawn on each side of a collapsed stretch (px of the plot), so marks do not touch its band. */
const COLLAPSE_MARGIN_PX = 8;
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
  /** The plot's width in px the axis was laid out for. */
  plotPx: number;
}

/**
 * `busy`: the moments something was in flight, [from, to] in seconds; `endS`: the axis' real end
 * (the last moment and a margin); `plotPx`: the plot's width, so that each collapsed stretch gets
 * GAP_PX of it. An idle stretch after the last request (a run that ended waiting) is collapsed too,
 * the axis then ending with its band. Otherwise the margin after the last request is the same
 * share of the drawn axis as it was of the real one: kept in seconds, it would be a quarter of a
 * plot whose minute was collapsed to a few seconds.
 */
export function collapsedAxis(busy: ReadonlyArray<readonly [number, number]>, endS: number, plotPx: number): CollapsedAxis {
  const sorted = [...busy].sort((a, b) => a[0] - b[0]);
  const idle: Array<[number, number]> = [];
  let reached = Number.NEGATIVE_INFINITY;
  for (const [from, to] of sorted) {
    if (reached !== Number.NEGATIVE_INFINITY && from - reached >= COLLAPSE_MIN_S) idle.push([reached, from]);
    reached = Math.max(reached, to);
  }
  const trailing = reached !== Number.NEGATIVE_INFINITY && endS - reached >= COLLAPSE_MIN_S;
  if (trailing) idle.push([reached, endS]);
  if (idle.length === 0) return { gaps: [], end: endS, endS, plotPx };
  const idleS = sum(idle.map(([from, to]) => to - from));
  const n = idle.length;
  const gapPx = Math.min(GAP_PX, (GAP_SHARE * plotPx) / n);
  // In display units, with m the margin each side of a gap and X the seconds drawn up to the last
  // request (X = base + 2n·m), the axis is X, the n gaps of width w each, and the tail Y after the
  // last request: w = g·(X + Y), since w/(X + Y + n·w) = gapPx/plotPx; Y = q·(X + n·w), the
  // share q the tail had of the real axis; m = COLLAPSE_MARGIN_PX·(X + Y + n·w)/plotPx. Solved
  // for m. A trailing stretch has no tail, and no margin after it (counted all the same: a few px).
  const g = gapPx / (plotPx - n * gapPx);
  const q = trailing || !(reached > 0) ? 0 : (endS - reached) / reached;
  const k = (q * (1 + n * g)) / (1 - q * n * g);
  const c = (COLLAPSE_MARGIN_PX / (plotPx - n * gapPx)) * (1 + k);
  const base = (trailing ? endS : reached) - idleS;
  const margin = (c * base) / (1 - 2 * n * c);
  const drawnEndS = trailing ? endS : reached + k * (base + 2 * n * margin);
  const collapsed = idle.map(([from, to], i): [number, number] => [from + margin, trailing && i === n - 1 ? to : to - margin]);
  const width = g * (drawnEndS - sum(collapsed.map(([from, to]) => to - from)));
  const gaps: AxisGap[] = [];
  let shift = 0;
  for (const [from, to] of collapsed) {
    gaps.push({ from, to, at: from - shift, width });
    shift += to - from - width;
  }
  return { gaps, end: drawnEndS - shift, endS: drawnEndS, plotPx };
}

const sum = (values: readonly number[]): number => values.reduce((total, v) => total + v, 0);

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

/** A tick's label: the real moment, to the millisecond at most. */
export const tickText = (s: number): string => `${round(s)} s`;

/**
 * The x axis' tick labels are 12 px text: a generous 7 px a character, and the space kept between
 * two side by side.
 */
const tickPx = (s: number): number => tickText(s).length * 7;
const TICK_PAD_PX = 12;

/**
 * The axis' labels, in real seconds: multiples of one round step on every drawn piece (the pieces
 * share one scale), none inside a gap, and no two whose labels would touch. A piece after a gap
 * that no multiple falls in gets one tick of a finer round step, so that the seconds after each
 * band are read off the axis, not reckoned from the band's duration.
 */
export function axisTicks(axis: CollapsedAxis, count = 8): number[] {
  const pxOf = (s: number): number => (toDisplay(axis, s) / axis.end) * axis.plotPx;
  const pieces: Array<[number, number]> = [];
  let from = 0;
  for (const g of axis.gaps) {
    pieces.push([from, g.from]);
    from = g.to;
  }
  pieces.push([from, axis.endS]);
  const drawn = pieces.filter(([a, b]) => b > a);
  const fits = (ticks: readonly number[]): boolean => ticks.every((t, i) => i === 0 || pxOf(t) - pxOf(ticks[i - 1] ?? t) >= (tickPx(t) + tickPx(ticks[i - 1] ?? t)) / 2 + TICK_PAD_PX);
  let step = niceStep(sum(drawn.map(([a, b]) => b - a)) / count);
  let perPiece = drawn.map(([a, b]) => multiples(a, b, step));
  while (!perPiece.every(fits)) {
    step = niceStep(step * 1.5);
    perPiece = drawn.map(([a, b]) => multiples(a, b, step));
  }
  const ticks: number[] = [];
  for (const [i, piece] of drawn.entries()) {
    const own = perPiece[i] ?? [];
    const chosen = own.length > 0 || i === 0 ? own : finerTick(piece, step);
    for (const t of chosen) {
      const last = ticks[ticks.length - 1];
      if (last !== undefined && !fits([last, t])) {
        // Beside a gap the piece's only tick wins over its neighbour across the band.
        if (chosen.length > 1) continue;
        ticks.pop();
      }
      ticks.push(t);
    }
  }
  return ticks;
}

/** The multiples of `step` from `a` to `b`, rounded to the millisecond. */
function multiples(a: number, b: number, step: number): number[] {
  const out: number[] = [];
  for (let k = Math.ceil(a / step - 1e-9); k * step <= b + 1e-9; k += 1) out.push(round(k * step));
  return out;
}

/** One tick in a piece too short for `step`: a multiple of the coarsest finer round step, nearest the piece's middle. */
function finerTick([a, b]: readonly [number, number], step: number): number[] {
  for (let finer = finerStep(step); finer >= 0.001; finer = finerStep(finer)) {
    const candidates = multiples(a, b, finer);
    if (candidates.length > 0) return [candidates.reduce((best, t) => (Math.abs(t - (a + b) / 2) < Math.abs(best - (a + b) / 2) ? t : best))];
  }
  return [];
}

// `|| 0`: no tick reads -0.
const round = (s: number): number => Math.round(s * 1000) / 1000 || 0;

/** The next round step below `step` (itself 1, 2 or 5 times a power of ten): 5 → 2 → 1 → 0.5. */
function finerStep(step: number): number {
  const power = 10 ** Math.floor(Math.log10(step) + 1e-9);
  const m = step / power;
  return (m > 4.5 ? 2 : m > 1.5 ? 1 : 0.5) * power;
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
