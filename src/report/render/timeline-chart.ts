/**
 * The timeline's picture: an SVG drawn by Apache ECharts' server-side renderer (no browser, no
 * DOM), loaded only when a report.html is rendered, from the package's single-file build. The
 * options are built here from the TimelineView; the SVG ECharts writes is then given what a
 * report needs and a chart library does not do: each mark a link to its exchange with a title,
 * data attributes the browser tests read, and ids that are the same on every rendering.
 *
 * Read without colour (printed, or by a person who cannot tell the colours apart), every
 * distinction is also a shape, a fill or a label: the operation is the symbol's shape, a refusal is
 * a hollow symbol, a 429 an X, a lagging read an hourglass, a cited mark a ring labelled with its
 * finding's number, a wait a dashed span labelled W1, W2…, a Reset a dotted line.
 */
import type { EChartsOption, GraphicComponentOption, MarkAreaComponentOption, MarkLineComponentOption, ScatterSeriesOption, init } from 'echarts';
import type { Expectation, RequirementResult, RunTimeline } from '../types.js';
import { CREDENTIAL_LABELS, timelineView, type Lane, type TimelineFinding, type TimelineMark, type TimelineView } from '../timeline.js';
import { esc } from './html-escape.js';
import { axisTicks, collapsedAxis, placeLabels, tickText, toDisplay, type AxisGap, type CollapsedAxis, type PlacedLabel } from '../timeline-layout.js';

export const CHART_WIDTH = 1040;
const MAIN_HEIGHT = 300;
const LANE_ROW = 26;
const LANE_GAP = 46;
const LEGEND_TOP = 4;
const LEGEND_ICON = 14;
const LEGEND_GAP = 22;
/** Below the legend: the strip the finding labels are placed in, row by row, above the lanes. */
const STRIP_BELOW_LEGEND = 18;
const LABEL_ROW = 19;
const STRIP_GAP = 14;
const BOTTOM = 56;
const GRID_LEFT = 150;
const GRID_RIGHT = 28;
const PLOT_WIDTH = CHART_WIDTH - GRID_LEFT - GRID_RIGHT;
/** A finding label's width: a generous 7 px a character of 11 px bold, and its padding. */
const labelWidth = (text: string): number => text.length * 7 + 8;

/** The operations' symbols and colours (the colour repeats what the shape says). */
const OPERATIONS: ReadonlyArray<{ op: string; name: string; symbol: string; color: string }> = [
  { op: 'listPets', name: 'listPets', symbol: 'circle', color: '#0b5cad' },
  { op: 'getPet', name: 'getPet', symbol: 'rect', color: '#1a7f37' },
  { op: 'createPet', name: 'createPet', symbol: 'diamond', color: '#8250df' },
  { op: 'listOrders', name: 'listOrders', symbol: 'triangle', color: '#9a6700' },
  { op: 'other', name: 'other path', symbol: 'arrow', color: '#57606a' },
];
/** The operation a mark is drawn as: a path outside the interface (or a report.json edited by hand) is "other". */
const drawnOperation = (m: TimelineMark): string => (OPERATIONS.some((o) => o.op === m.op) ? m.op : 'other');
const X_SYMBOL = 'path://M0,0L2,0L5,3L8,0L10,0L6,4L6,6L10,10L8,10L5,7L2,10L0,10L4,6L4,4Z';
const HOURGLASS_SYMBOL = 'path://M0,0L10,0L10,1L6,5L10,9L10,10L0,10L0,9L4,5L0,1Z';
const THROTTLED_COLOR = '#b3261e';
const LAGGED_COLOR = '#bc4c00';
const INK = '#1b1f24';
const MUTED = '#57606a';
const SYMBOL_SIZE = 8;
const RING_SIZE = 19;

const THROTTLED = '429 Too Many Requests';
const LAGGED = 'read before the pet showed (lag)';
const CITED = 'cited by a finding';

interface LaneLayout {
  lane: Lane;
  grid: number;
  categories?: string[];
  title: string;
}

/** The lanes that have marks, top to bottom: the key's Remaining, the key without one, the requests without a valid key. */
function lanesOf(view: TimelineView): LaneLayout[] {
  const lanes: LaneLayout[] = [{ lane: 'keyed', grid: 0, title: 'With the run\u2019s key: X-RateLimit-Remaining' }];
  if (view.marks.some((m) => m.lane === 'no-remaining')) lanes.push({ lane: 'no-remaining', grid: lanes.length, categories: ['no Remaining'], title: 'With the key, no usable X-RateLimit-Remaining (or no response)' });
  const credentials = [...new Set(view.marks.filter((m) => m.lane === 'without-key').map((m) => CREDENTIAL_LABELS[m.response.auth]))];
  if (credentials.length > 0) lanes.push({ lane: 'without-key', grid: lanes.length, categories: credentials, title: 'Without a valid key (a server may count these per address)' });
  return lanes;
}

function gridHeight(lane: LaneLayout): number {
  return lane.categories === undefined ? MAIN_HEIGHT : LANE_ROW * lane.categories.length;
}

/** A finding's label in the strip, and the point of the picture it names (its leader line's end). */
interface FindingLabel {
  text: string;
  box: PlacedLabel;
  to: { x: number; y: number };
}

/**
 * Where everything goes: the x axis (long waits collapsed), the finding labels placed in rows so
 * that none overlaps another, the lanes' tops below them.
 */
interface Geometry {
  axis: CollapsedAxis;
  lanes: LaneLayout[];
  series: PlannedSeries[];
  tops: number[];
  height: number;
  labels: FindingLabel[];
  /** A moment (s) in display units, and in px. */
  dx: (s: number) => number;
  px: (s: number) => number;
}

function geometryOf(view: TimelineView): Geometry {
  const axis = collapsedAxis(
    view.timeline.responses.map((r) => [r.t / 1000, (r.t + r.ms) / 1000] as const),
    view.endS,
    PLOT_WIDTH,
  );
  const dx = (s: number): number => toDisplay(axis, s);
  const px = (s: number): number => GRID_LEFT + (dx(s) / axis.end) * PLOT_WIDTH;
  const lanes = lanesOf(view);
  const wanted = findingLabels(view, axis.endS, px);
  const placed = placeLabels(
    wanted.map((w) => ({ anchor: w.anchor, width: labelWidth(w.text) })),
    { left: 4, right: CHART_WIDTH - 4, bottom: 0, rowHeight: LABEL_ROW },
  );
  const rows = placed.reduce((max, p) => Math.max(max, p.row + 1), 0);
  const series = plannedSeries(view, lanes);
  const stripBottom = stripTop(legendNames(series)) + rows * LABEL_ROW;
  let top = stripBottom + STRIP_GAP + 8;
  const tops = lanes.map((lane) => {
    const at = top;
    top += gridHeight(lane) + LANE_GAP;
    return at;
  });
  const height = top - LANE_GAP + BOTTOM;
  const yOfPoint = (p: LabelPoint): number => {
    const i = lanes.findIndex((l) => l.lane === p.lane);
    const lane = lanes[i];
    const laneTop = tops[i] ?? 0;
    if (lane === undefined) return laneTop;
    if (lane.categories === undefined) return laneTop + MAIN_HEIGHT * (1 - Math.min(p.value ?? 0, view.topY) / view.topY);
    // A category axis counts its rows from the bottom.
    const row = Math.max(0, lane.categories.indexOf(p.category ?? ''));
    return laneTop + gridHeight(lane) - (row + 0.5) * LANE_ROW;
  };
  const labels = wanted.flatMap((w, i) => {
    const box = placed[i];
    if (box === undefined) return [];
    return [{ text: w.text, box: { ...box, y: box.y + stripBottom }, to: { x: w.anchor, y: yOfPoint(w.point) - (w.ring ? RING_SIZE / 2 : 0) } }];
  });
  return { axis, lanes, series, tops, height, labels, dx, px };
}

interface LabelPoint {
  lane: Lane;
  value?: number;
  category?: string;
}

interface WantedLabel {
  text: string;
  anchor: number;
  point: LabelPoint;
  ring: boolean;
}

/** The labels the findings need: one per ringed mark (the numbers of the findings citing it), one per expectation drawn. */
function findingLabels(view: TimelineView, endS: number, px: (s: number) => number): WantedLabel[] {
  const rings = view.marks
    .filter((m) => m.cited.length > 0)
    .map((m) => ({
      text: m.cited.map((n) => `F${n}`).join(' '),
      anchor: px(m.x),
      point: { lane: m.lane, ...(m.y === undefined ? {} : { value: m.y }), category: m.lane === 'without-key' ? CREDENTIAL_LABELS[m.response.auth] : 'no Remaining' },
      ring: true,
    }))
    // Rings of the same findings that coincide (a burst's requests refused together) share one label:
    // a stack of "F1"s would name one place several times.
    .filter((r, i, all) => !all.slice(0, i).some((o) => o.text === r.text && o.point.lane === r.point.lane && o.point.category === r.point.category && Math.abs(o.anchor - r.anchor) < RING_SIZE / 2 && Math.abs((o.point.value ?? 0) - (r.point.value ?? 0)) <= view.topY * 0.03));
  const bounds = expectationSpans(view, endS).map((e) => ({ text: e.label, anchor: (px(e.from) + px(e.to)) / 2, point: e.value === undefined ? { lane: 'keyed' as const, value: view.topY } : { lane: 'keyed' as const, value: e.value }, ring: false }));
  return [...rings, ...bounds];
}

export function chartHeight(view: TimelineView): number {
  return geometryOf(view).height;
}

/** The y value of a mark in its lane: Remaining, or its category's index. */
function yOf(mark: TimelineMark, lane: LaneLayout): number | string {
  if (lane.categories === undefined) return mark.y ?? 0;
  return lane.lane === 'without-key' ? CREDENTIAL_LABELS[mark.response.auth] : (lane.categories[0] ?? '');
}

/** What each drawn data item stands for, by series index and data index, to link it once drawn. */
type Drawn = Array<{ role: 'mark' | 'ring'; marks: TimelineMark[] }>;

function scatter(name: string, lane: LaneLayout, marks: TimelineMark[], style: Partial<ScatterSeriesOption>, dx: (s: number) => number): ScatterSeriesOption {
  return {
    type: 'scatter',
    name,
    xAxisIndex: lane.grid,
    yAxisIndex: lane.grid,
    symbolSize: SYMBOL_SIZE,
    data: marks.map((m) => ({
      value: [dx(m.x), yOf(m, lane)],
      // A refusal (4xx, 5xx other than 429) is hollow: shown by fill, not only by colour.
      ...(m.kind === 'refused' || m.kind === 'no-response' ? { itemStyle: { color: '#ffffff', borderWidth: 1.6 } } : {}),
    })),
    ...style,
  };
}

function boundLabel(f: TimelineFinding, e: Expectation): string {
  switch (e.kind) {
    case 'remaining-at-most':
      return `F${f.n}: at most ${e.value}`;
    case 'remaining-at-least':
      return `F${f.n}: at least ${e.value}`;
    case 'limit':
      return `F${f.n}: Limit ${e.value}`;
    case 'window-until':
      return `F${f.n}: window until`;
    case 'served-from':
      return `F${f.n}: served from`;
  }
}

/** A finding's expectation as drawn: a bound from one moment to another (s), or a moment (`value` undefined). */
interface ExpectationSpan {
  label: string;
  from: number;
  to: number;
  value?: number;
}

/** Each finding's expectation: a bound it held Remaining (or the Limit) to between its marks, or the moment it named if the axis (to `endS`) has it. */
function expectationSpans(view: TimelineView, endS: number): ExpectationSpan[] {
  const xOf = new Map(view.marks.map((m) => [m.seq, m.x]));
  const spans: ExpectationSpan[] = [];
  for (const f of view.findings) {
    const e = f.expected;
    const at = xOf.get(f.cites[0] ?? -1);
    if (e === undefined || at === undefined) continue;
    if (e.kind === 'window-until' || e.kind === 'served-from') {
      // A moment beyond the picture is said in words only (the findings' list below it).
      const x = (e.value - view.timeline.start) / 1000;
      if (x >= 0 && x <= endS) spans.push({ label: boundLabel(f, e), from: x, to: x });
      continue;
    }
    const paired = f.pairedWith === undefined ? undefined : xOf.get(f.pairedWith);
    spans.push({ label: boundLabel(f, e), from: paired ?? at, to: at, value: e.value });
  }
  return spans;
}

/** The expectations' lines, in display units: a short bound is widened to be seen; its label is in the strip. */
function expectations(view: TimelineView, g: Geometry): MarkLineComponentOption['data'] {
  const minWidth = g.axis.end * 0.01;
  return expectationSpans(view, g.axis.endS).map((e) => {
    if (e.value === undefined) return { xAxis: g.dx(e.from), label: { show: false } };
    const to = g.dx(e.to);
    const from = Math.min(g.dx(e.from), to - minWidth * 2);
    return [{ coord: [Math.max(0, from), e.value], label: { show: false } }, { coord: [Math.max(to, from + minWidth), e.value] }];
  });
}

/** What a collapsed stretch's band says: how long it was, in a word fewer when many bands make each narrow. */
function gapText(gap: AxisGap, axis: CollapsedAxis): string {
  const seconds = `${Math.round(gap.to - gap.from)} s`;
  const full = `\u22ef ${seconds} wait \u22ef`;
  // Bold 11 px: about 6 px a character (the ellipses narrower), and the label's padding.
  return (gap.width / axis.end) * axis.plotPx >= full.length * 6 + 6 ? full : seconds;
}

/**
 * The waits' names, each at the top of its span, in order of time: waits that overlap (a burst's
 * requests each waiting out the same 429) or whose names would touch share one name on the first
 * ("W1\u2013W4"), the others none. `toPx`: display units to px.
 */
function waitNames(spans: ReadonlyArray<{ n: number; from: number; to: number }>, toPx: (d: number) => number): Array<string | undefined> {
  const names: Array<string | undefined> = spans.map(() => undefined);
  // 11 px text at about 7 px a character, and the space kept between two names.
  const width = (text: string): number => text.length * 7 + 6;
  const nameOf = (first: number, last: number): string => (first === last ? `W${first}` : last === first + 1 ? `W${first}, W${last}` : `W${first}\u2013W${last}`);
  let head: { i: number; center: number; end: number; last: number } | undefined;
  for (const [i, w] of spans.entries()) {
    const center = toPx((w.from + w.to) / 2);
    if (head !== undefined) {
      const headName = nameOf(spans[head.i]?.n ?? 0, head.last);
      const joins = toPx(w.from) < head.end || center - head.center < (width(headName) + width(`W${w.n}`)) / 2;
      if (joins) {
        head.last = w.n;
        head.end = Math.max(head.end, toPx(w.to));
        names[head.i] = nameOf(spans[head.i]?.n ?? 0, w.n);
        continue;
      }
    }
    head = { i, center, end: toPx(w.to), last: w.n };
    names[i] = `W${w.n}`;
  }
  return names;
}

/** Resets, waits and expectations, carried by a series of no data in the keyed lane. */
function decorations(view: TimelineView, g: Geometry): ScatterSeriesOption {
  // The drawn axis may end before the view's: its margin after the last request is scaled with a collapsed wait.
  // A Reset's label is at the foot of the line, after it: the next window's first marks are at the
  // top of the lane (its Remaining full), the last ones before it low.
  const onAxis = (x: number | undefined): x is number => x !== undefined && x <= g.axis.endS;
  const labelled = view.windows.filter((w) => onAxis(w.x)).length <= 16;
  const resets: NonNullable<MarkLineComponentOption['data']> = view.windows.flatMap((w) =>
    !onAxis(w.x) ? [] : [{ xAxis: g.dx(w.x), lineStyle: { type: 'dotted', color: MUTED, width: 1.2 }, label: { show: labelled, formatter: 'Reset', position: 'insideStartBottom', color: MUTED } }],
  );
  const spans = view.waits.filter((w) => onAxis(w.x)).map((w) => ({ n: w.n, from: g.dx(w.x), to: Math.min(g.axis.end, Math.max(g.dx(w.x + w.width), g.dx(w.x) + g.axis.end * 0.002)) }));
  const names = waitNames(spans, (d) => (d / g.axis.end) * PLOT_WIDTH);
  const waits: NonNullable<MarkAreaComponentOption['data']> = spans.map((w, i) => {
    const name = names[i];
    return [{ xAxis: w.from, ...(name === undefined ? { label: { show: false } } : { name }) }, { xAxis: w.to }];
  });
  // A collapsed stretch: a band of its own, solid-edged and lighter than a wait, that says how long it was.
  const gaps: NonNullable<MarkAreaComponentOption['data']> = g.axis.gaps.map((gap) => [
    {
      xAxis: gap.at,
      name: gapText(gap, g.axis),
      itemStyle: { color: 'rgba(255, 255, 255, 0.85)', borderColor: INK, borderWidth: 1.5, borderType: 'solid' },
      // In its middle: a Reset's label is at the foot of its line, a wait's name at the top.
      label: { position: 'inside', fontWeight: 'bold', backgroundColor: '#ffffff', padding: [2, 3] },
    },
    { xAxis: gap.at + gap.width },
  ]);
  return {
    type: 'scatter',
    name: 'windows and waits',
    data: [],
    silent: true,
    markLine: {
      silent: true,
      symbol: 'none',
      animation: false,
      lineStyle: { type: 'dashed', color: INK, width: 2 },
      data: [...resets, ...(expectations(view, g) ?? [])],
    },
    markArea: {
      silent: true,
      itemStyle: { color: 'rgba(87, 96, 106, 0.13)', borderColor: MUTED, borderWidth: 1, borderType: 'dashed' },
      label: { show: true, position: 'insideTop', color: INK, fontSize: 11 },
      data: [...waits, ...gaps],
    },
  };
}

/** A series of marks before it is placed on the axis: its legend name, lane, marks and look. */
interface PlannedSeries {
  name: string;
  lane: LaneLayout;
  marks: TimelineMark[];
  style: Partial<ScatterSeriesOption>;
  role: 'mark' | 'ring';
}

/** The series of marks, lane by lane: one per operation, the 429s, the lagging reads, the rings. */
function plannedSeries(view: TimelineView, lanes: readonly LaneLayout[]): PlannedSeries[] {
  const planned: PlannedSeries[] = [];
  const add = (name: string, lane: LaneLayout, marks: TimelineMark[], style: Partial<ScatterSeriesOption>, role: 'mark' | 'ring' = 'mark'): void => {
    if (marks.length > 0) planned.push({ name, lane, marks, style, role });
  };
  for (const lane of lanes) {
    const inLane = view.marks.filter((m) => m.lane === lane.lane);
    const special = (m: TimelineMark): boolean => m.kind === 'throttled' || m.response.lagged === true;
    for (const o of OPERATIONS) add(o.name, lane, inLane.filter((m) => drawnOperation(m) === o.op && !special(m)), { symbol: o.symbol, itemStyle: { color: o.color, borderColor: o.color } });
    add(THROTTLED, lane, inLane.filter((m) => m.kind === 'throttled'), { symbol: X_SYMBOL, symbolSize: SYMBOL_SIZE + 3, itemStyle: { color: THROTTLED_COLOR } });
    add(LAGGED, lane, inLane.filter((m) => m.response.lagged === true && m.kind !== 'throttled'), { symbol: HOURGLASS_SYMBOL, symbolSize: SYMBOL_SIZE + 3, itemStyle: { color: LAGGED_COLOR } });
    add(
      CITED,
      lane,
      inLane.filter((m) => m.cited.length > 0),
      {
        symbol: 'circle',
        symbolSize: RING_SIZE,
        z: 5,
        // A ring, not a disc: the mark it circles stays visible.
        // Its label is in the strip above the lanes, placed apart from every other (geometryOf).
        itemStyle: { color: 'rgba(0, 0, 0, 0)', borderColor: INK, borderWidth: 2.4 },
      },
      'ring',
    );
  }
  return planned;
}

const legendNames = (series: readonly PlannedSeries[]): string[] => [...new Set(series.map((p) => p.name))];

/**
 * Where the finding labels' strip begins: below the legend, which wraps to further rows when its
 * entries do not fit the plot's width (a run with lagging reads and other paths has eight).
 */
function stripTop(names: readonly string[]): number {
  let rows = 1;
  let used = 0;
  for (const name of names) {
    // The icon, the 5 px ECharts keeps before the text, the 12 px text at a generous 7 px a character.
    const width = LEGEND_ICON + 5 + name.length * 7;
    if (used > 0 && used + LEGEND_GAP + width > PLOT_WIDTH) {
      rows += 1;
      used = 0;
    }
    used += (used > 0 ? LEGEND_GAP : 0) + width;
  }
  // A row's text is 14 px high; ECharts keeps itemGap between rows as between entries.
  return LEGEND_TOP + rows * 14 + (rows - 1) * LEGEND_GAP + STRIP_BELOW_LEGEND;
}

/** The options and, for each series, what its data items stand for. */
export function timelineOption(view: TimelineView): { option: EChartsOption; drawn: Drawn } {
  const g = geometryOf(view);
  const lanes = g.lanes;
  const series: ScatterSeriesOption[] = [];
  const drawn: Drawn = [];
  const add = (s: ScatterSeriesOption, role: 'mark' | 'ring', marks: TimelineMark[]): void => {
    series.push(s);
    drawn.push({ role, marks });
  };
  add(decorations(view, g), 'mark', []);
  for (const planned of g.series) {
    const drawnSeries = scatter(planned.name, planned.lane, planned.marks, planned.style, g.dx);
    // A ring is drawn plain whatever its mark's fill: only its border shows.
    if (planned.role === 'ring') add({ ...drawnSeries, data: planned.marks.map((m) => ({ value: [g.dx(m.x), yOf(m, planned.lane)] })) }, 'ring', planned.marks);
    else add(drawnSeries, 'mark', planned.marks);
  }
  const grids = lanes.map((lane, i) => ({ left: GRID_LEFT, right: GRID_RIGHT, top: g.tops[i] ?? 0, height: gridHeight(lane) }));
  const ticks = axisTicks(g.axis);
  const last = lanes.length - 1;
  const option: EChartsOption = {
    animation: false,
    textStyle: { fontFamily: 'system-ui, "Segoe UI", Roboto, Arial, sans-serif', color: INK },
    legend: { top: LEGEND_TOP, left: GRID_LEFT, right: GRID_RIGHT, itemWidth: LEGEND_ICON, itemHeight: 10, itemGap: LEGEND_GAP, textStyle: { color: INK, fontSize: 12 }, data: legendNames(g.series) },
    grid: grids,
    xAxis: lanes.map((lane, i) => ({
      type: 'value',
      gridIndex: lane.grid,
      min: 0,
      max: g.axis.end,
      // The labels name real moments: with a stretch collapsed, display units are not seconds.
      // margin: the first label clear of the Remaining axis' "0" when the keyed lane is the only one.
      axisLabel: { show: i === last, color: INK, margin: 12, customValues: ticks.map(g.dx), formatter: (v: number) => tickText(secondsAt(g.axis, ticks, v)) },
      axisTick: { customValues: ticks.map(g.dx) },
      ...(i === last ? { name: 'seconds after the first request, on the server\u2019s clock as the run read it', nameLocation: 'middle' as const, nameGap: 34, nameTextStyle: { color: INK } } : {}),
      splitLine: { show: false },
    })),
    yAxis: lanes.map((lane) =>
      lane.categories === undefined
        ? { type: 'value', gridIndex: lane.grid, min: 0, max: view.topY, name: 'Remaining', nameLocation: 'middle' as const, nameGap: 34, nameTextStyle: { color: INK }, axisLabel: { color: INK }, splitLine: { lineStyle: { color: '#e3e7eb' } } }
        : { type: 'category', gridIndex: lane.grid, data: lane.categories, axisLabel: { color: INK }, axisTick: { show: false } },
    ),
    series,
    graphic: labelGraphics(g.labels),
  };
  return { option, drawn };
}

/** The moment a tick in display units stands for. */
function secondsAt(axis: CollapsedAxis, ticks: readonly number[], display: number): number {
  const near = ticks.reduce<number | undefined>((best, t) => (best === undefined || Math.abs(toDisplay(axis, t) - display) < Math.abs(toDisplay(axis, best) - display) ? t : best), undefined);
  return near ?? display;
}


/** The finding labels, each with a thin leader line down to what it names. */
function labelGraphics(labels: readonly FindingLabel[]): GraphicComponentOption[] {
  return labels.flatMap((l): GraphicComponentOption[] => {
    const from = { x: Math.max(l.box.x + 4, Math.min(l.to.x, l.box.x + l.box.width - 4)), y: l.box.y + l.box.height };
    return [
      { type: 'line', silent: true, z: 4, shape: { x1: from.x, y1: from.y, x2: l.to.x, y2: l.to.y }, style: { stroke: MUTED, lineWidth: 0.8, lineDash: [2, 2] } },
      { type: 'text', silent: true, z: 6, x: l.box.x + 4, y: l.box.y + 1, style: { text: l.text, fill: INK, font: 'bold 11px system-ui, "Segoe UI", Roboto, Arial, sans-serif', align: 'left', verticalAlign: 'top' } },
    ];
  });
}

interface Echarts {
  init: typeof init;
}

let loading: Promise<Echarts> | undefined;

/**
 * ECharts, loaded on the first timeline drawn: a run that writes no report.html never pays for
 * it. The single-file build, not the package's index (hundreds of modules).
 */
function loadEcharts(): Promise<Echarts> {
  loading ??= import('echarts/dist/echarts.esm.min');
  return loading;
}

/**
 * zrender names its SVG's ids and classes by counters that run on across charts drawn in one
 * process ("zr3-cls-17"): renumbered in order of first appearance, the same report gives the same
 * page whenever it is rendered.
 */
function stableNames(svg: string): string {
  const renamed = new Map<string, string>();
  const perKind = new Map<string, number>();
  return svg.replace(/\bzr\d+-([a-z]+-?)(\d+)\b/g, (name: string, kind: string) => {
    let stable = renamed.get(name);
    if (stable === undefined) {
      const n = perKind.get(kind) ?? 0;
      perKind.set(kind, n + 1);
      stable = `tl-${kind}${n}`;
      renamed.set(name, stable);
    }
    return stable;
  });
}

/**
 * ECharts' SVG made a report's: zrender's per-instance ids made the same on every rendering, each
 * drawn mark (and its ring) wrapped in a link to its exchange with its title, the attributes the
 * server-side renderer leaves for its client runtime replaced by data attributes of our own.
 */
export function linkMarks(svg: string, drawn: Drawn, ringIds: ReadonlyMap<number, string>): string {
  const stable = stableNames(svg);
  const linked = stable.replace(/<path ([^>]*?)ecmeta_series_index="(\d+)" ecmeta_data_index="(\d+)" ecmeta_ssr_type="chart"([^>]*)><\/path>/g, (whole, before: string, s: string, i: string, after: string) => {
    const series = drawn[Number(s)];
    const mark = series?.marks[Number(i)];
    if (series === undefined || mark === undefined) return `<path ${before}${after}></path>`;
    const cls = series.role === 'ring' ? 'ring' : 'mark';
    const r = mark.response;
    const ringId = cls === 'ring' ? ringIds.get(mark.seq) : undefined;
    const attrs = [
      ...(ringId === undefined ? [] : [`id="${ringId}"`]),
      `href="#${mark.href}"`,
      'tabindex="-1"',
      `class="${cls}"`,
      `data-seq="${mark.seq}"`,
      `data-lane="${mark.lane}"`,
      `data-auth="${r.auth}"`,
      `data-kind="${mark.kind}"`,
      ...(mark.cited.length === 0 ? [] : [`data-cited="${mark.cited.join(' ')}"`]),
    ];
    return `<a ${attrs.join(' ')}><title>${esc(mark.label)}</title><path ${before}${after}></path></a>`;
  });
  const clean = linked.replace(/ ecmeta_[a-z_]+="[^"]*"/g, '');
  // The picture is for the eye: assistive technology reads its text equivalent (the summary the
  // figure is labelled by, the findings, the tables, whose rows carry the same links). Its marks
  // stay out of the tab order for the same reason.
  return clean.replace(/^<svg /, '<svg class="timeline-chart" aria-hidden="true" focusable="false" ');
}

function draw(echarts: Echarts, view: TimelineView, ringIds: ReadonlyMap<number, string>): string {
  const { option, drawn } = timelineOption(view);
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: CHART_WIDTH, height: chartHeight(view) });
  try {
    chart.setOption(option);
    return linkMarks(chart.renderToSVGString(), drawn, ringIds);
  } finally {
    // Without it, zrender's animation loop would keep the process alive.
    chart.dispose();
  }
}

/** The timeline's SVG; `ringIds`: the ids of findings' places, by the ringed mark's seq. */
export async function renderTimelineSvg(view: TimelineView, ringIds: ReadonlyMap<number, string>): Promise<string> {
  return draw(await loadEcharts(), view, ringIds);
}

/** A small timeline with one of everything the picture draws, for the warm-up. */
function warmUpView(): TimelineView | undefined {
  const response = (seq: number, op: string, status: number, more: object = {}): RunTimeline['responses'][number] => ({ seq, t: seq * 100, ms: 10, op, status, auth: 'key', limit: 60, remaining: 60 - seq, reset: 1, ...more });
  const timeline: RunTimeline = {
    clock: 'server',
    start: 0,
    offsetMs: 0,
    responses: [response(1, 'listPets', 200), response(2, 'getPet', 404, { lagged: true }), response(3, 'createPet', 201), response(4, 'listOrders', 429), response(5, 'listPets', 401, { auth: 'none' }), { seq: 6, t: 600, ms: 10, op: 'other', status: 200, auth: 'key' }],
    waits: [{ t: 450, ms: 100, reason: 'warm-up' }],
  };
  const finding: RequirementResult = {
    id: 'RATE-002',
    section: '8',
    title: '',
    level: 'must',
    status: 'fail',
    statement: '',
    tests: [],
    evidence: [{ kind: 'violation', message: '', cites: [3, 1], pairedWith: 1, expected: { kind: 'remaining-at-most', value: 50 } }],
  };
  return timelineView({ timeline, requirements: [finding] }, () => undefined);
}

let warming: Promise<void> | undefined;

/**
 * Loads ECharts and draws a small timeline once, so that writing report.html later only draws
 * (a first drawing costs twice a second one: the library's code is compiled as it first runs).
 * The CLI calls it while the run waits on the target's rate limit and does nothing else: the
 * load then costs no time of the run's own, and its memory comes after the run's peak (its
 * suites loading), not on top of it.
 */
export function prepareTimelineChart(): Promise<void> {
  warming ??= loadEcharts().then((echarts) => {
    const view = warmUpView();
    if (view !== undefined) draw(echarts, view, new Map());
  });
  return warming;
}
