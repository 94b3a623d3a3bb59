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
import type { EChartsOption, MarkAreaComponentOption, MarkLineComponentOption, ScatterSeriesOption, init } from 'echarts';
import type { Expectation, RequirementResult, RunTimeline } from '../types.js';
import { CREDENTIAL_LABELS, timelineView, type Lane, type TimelineFinding, type TimelineMark, type TimelineView } from '../timeline.js';
import { esc } from './html-escape.js';

export const CHART_WIDTH = 1040;
const MAIN_HEIGHT = 300;
const LANE_ROW = 26;
const LANE_GAP = 46;
const TOP = 64;
const BOTTOM = 56;

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

export function chartHeight(view: TimelineView): number {
  return TOP + lanesOf(view).reduce((sum, lane, i) => sum + gridHeight(lane) + (i === 0 ? 0 : LANE_GAP), 0) + BOTTOM;
}

/** The y value of a mark in its lane: Remaining, or its category's index. */
function yOf(mark: TimelineMark, lane: LaneLayout): number | string {
  if (lane.categories === undefined) return mark.y ?? 0;
  return lane.lane === 'without-key' ? CREDENTIAL_LABELS[mark.response.auth] : (lane.categories[0] ?? '');
}

/** What each drawn data item stands for, by series index and data index, to link it once drawn. */
type Drawn = Array<{ role: 'mark' | 'ring'; marks: TimelineMark[] }>;

function scatter(name: string, lane: LaneLayout, marks: TimelineMark[], style: Partial<ScatterSeriesOption>): ScatterSeriesOption {
  return {
    type: 'scatter',
    name,
    xAxisIndex: lane.grid,
    yAxisIndex: lane.grid,
    symbolSize: SYMBOL_SIZE,
    data: marks.map((m) => ({
      value: [m.x, yOf(m, lane)],
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

/** Each finding's expectation: a dashed segment at the bound it held Remaining (or the Limit) to, or a dashed line at the moment it named. */
function expectations(view: TimelineView): MarkLineComponentOption['data'] {
  const xOf = new Map(view.marks.map((m) => [m.seq, m.x]));
  const data: NonNullable<MarkLineComponentOption['data']> = [];
  for (const f of view.findings) {
    const e = f.expected;
    const at = xOf.get(f.cites[0] ?? -1);
    if (e === undefined || at === undefined) continue;
    const label = { formatter: boundLabel(f, e), color: INK, fontWeight: 'bold' as const };
    if (e.kind === 'window-until' || e.kind === 'served-from') {
      // A moment beyond the picture is said in words only (the findings' list below it).
      const x = (e.value - view.timeline.start) / 1000;
      if (x >= 0 && x <= view.endS) data.push({ xAxis: x, label: { ...label, position: 'insideEndTop' } });
      continue;
    }
    const from = (f.pairedWith === undefined ? undefined : xOf.get(f.pairedWith)) ?? Math.max(0, at - view.endS * 0.03);
    // Labelled above its middle: its ends are where the cited marks are, ringed and labelled.
    data.push([
      { coord: [from, e.value], label: { ...label, position: 'insideMiddleTop' } },
      { coord: [Math.max(at, from + view.endS * 0.01), e.value] },
    ]);
  }
  return data;
}

/** Resets, waits and expectations, carried by a series of no data in the keyed lane. */
function decorations(view: TimelineView): ScatterSeriesOption {
  const labelled = view.windows.filter((w) => w.x !== undefined).length <= 16;
  const resets: NonNullable<MarkLineComponentOption['data']> = view.windows.flatMap((w) =>
    w.x === undefined ? [] : [{ xAxis: w.x, lineStyle: { type: 'dotted', color: MUTED, width: 1.2 }, label: { show: labelled, formatter: 'Reset', position: 'insideEndBottom', color: MUTED } }],
  );
  const waits: NonNullable<MarkAreaComponentOption['data']> = view.waits.map((w) => [
    { xAxis: w.x, name: `W${w.n}` },
    { xAxis: w.x + Math.max(w.width, view.endS * 0.002) },
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
      data: [...resets, ...(expectations(view) ?? [])],
    },
    markArea: {
      silent: true,
      itemStyle: { color: 'rgba(87, 96, 106, 0.13)', borderColor: MUTED, borderWidth: 1, borderType: 'dashed' },
      label: { show: true, position: 'insideTop', color: INK, fontSize: 11 },
      data: waits,
    },
  };
}

/** The options and, for each series, what its data items stand for. */
export function timelineOption(view: TimelineView): { option: EChartsOption; drawn: Drawn } {
  const lanes = lanesOf(view);
  const series: ScatterSeriesOption[] = [];
  const drawn: Drawn = [];
  const add = (s: ScatterSeriesOption, role: 'mark' | 'ring', marks: TimelineMark[]): void => {
    series.push(s);
    drawn.push({ role, marks });
  };
  add(decorations(view), 'mark', []);
  for (const lane of lanes) {
    const inLane = view.marks.filter((m) => m.lane === lane.lane);
    const special = (m: TimelineMark): boolean => m.kind === 'throttled' || m.response.lagged === true;
    for (const o of OPERATIONS) {
      const marks = inLane.filter((m) => drawnOperation(m) === o.op && !special(m));
      if (marks.length > 0) add(scatter(o.name, lane, marks, { symbol: o.symbol, itemStyle: { color: o.color, borderColor: o.color } }), 'mark', marks);
    }
    const throttled = inLane.filter((m) => m.kind === 'throttled');
    if (throttled.length > 0) add(scatter(THROTTLED, lane, throttled, { symbol: X_SYMBOL, symbolSize: SYMBOL_SIZE + 3, itemStyle: { color: THROTTLED_COLOR } }), 'mark', throttled);
    const lagged = inLane.filter((m) => m.response.lagged === true && m.kind !== 'throttled');
    if (lagged.length > 0) add(scatter(LAGGED, lane, lagged, { symbol: HOURGLASS_SYMBOL, symbolSize: SYMBOL_SIZE + 3, itemStyle: { color: LAGGED_COLOR } }), 'mark', lagged);
    const cited = inLane.filter((m) => m.cited.length > 0);
    if (cited.length > 0) {
      const rings = scatter(CITED, lane, cited, {
        symbol: 'circle',
        symbolSize: RING_SIZE,
        z: 5,
        // A ring, not a disc: the mark it circles stays visible.
        itemStyle: { color: 'rgba(0, 0, 0, 0)', borderColor: INK, borderWidth: 2.4 },
        label: { show: true, position: 'top', distance: 2, color: INK, fontWeight: 'bold', fontSize: 11, formatter: (p) => (cited[p.dataIndex]?.cited ?? []).map((n) => `F${n}`).join(' ') },
      });
      add({ ...rings, data: cited.map((m) => ({ value: [m.x, yOf(m, lane)] })) }, 'ring', cited);
    }
  }
  let top = TOP;
  const grids = lanes.map((lane) => {
    const grid = { left: 150, right: 28, top, height: gridHeight(lane) };
    top += gridHeight(lane) + LANE_GAP;
    return grid;
  });
  const last = lanes.length - 1;
  const option: EChartsOption = {
    animation: false,
    textStyle: { fontFamily: 'system-ui, "Segoe UI", Roboto, Arial, sans-serif', color: INK },
    legend: { top: 4, left: 150, right: 28, itemWidth: 14, itemHeight: 10, itemGap: 22, textStyle: { color: INK, fontSize: 12 }, data: [...new Set(series.slice(1).map((s) => String(s.name)))] },
    grid: grids,
    xAxis: lanes.map((lane, i) => ({
      type: 'value',
      gridIndex: lane.grid,
      min: 0,
      max: view.endS,
      axisLabel: { show: i === last, showMaxLabel: false, color: INK, formatter: (v: number) => `${v} s` },
      ...(i === last ? { name: 'seconds after the first request, on the server\u2019s clock as the run read it', nameLocation: 'middle' as const, nameGap: 30, nameTextStyle: { color: INK } } : {}),
      splitLine: { show: i === 0, lineStyle: { color: '#e3e7eb' } },
    })),
    yAxis: lanes.map((lane) =>
      lane.categories === undefined
        ? { type: 'value', gridIndex: lane.grid, min: 0, max: view.topY, name: 'Remaining', nameTextStyle: { color: INK }, axisLabel: { color: INK }, splitLine: { lineStyle: { color: '#e3e7eb' } } }
        : { type: 'category', gridIndex: lane.grid, data: lane.categories, axisLabel: { color: INK }, axisTick: { show: false } },
    ),
    series,
  };
  return { option, drawn };
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
