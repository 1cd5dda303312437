import uPlot from 'uplot';
import { h, type Child } from './dom';
import { table, type Column } from './ui';

/** Series colours: distinct hues, each at least 3:1 against the white chart background. */
const PALETTE = ['#1f5fbf', '#c2410c', '#15803d', '#7e22ce', '#b91c1c', '#0e7490', '#a16207', '#be185d', '#4d7c0f', '#475569', '#1e3a8a'];
const HEIGHT = 240;

export interface Series {
  label: string;
  values: number[];
}

export interface ChartSpec {
  id: string;
  title: string;
  /** What the chart shows, read out in place of the canvas. */
  summary: string;
  kind: 'bars' | 'lines';
  /** Category labels (bars, or lines over categories) or, with `time`, Unix seconds. */
  x: Array<string | number>;
  time?: boolean;
  series: Series[];
  xLabel: string;
}

/**
 * A chart (uPlot, drawn on a canvas) in a figure with its caption, and the same numbers as a table
 * for screen readers and for reading exact values. The chart follows the figure's width and is
 * destroyed when the page is left.
 */
export function chart(spec: ChartSpec, signal: AbortSignal): HTMLElement {
  const plot = h('div', { class: 'plot', role: 'img', 'aria-label': `${spec.title}: ${spec.summary}` });
  const figure = h(
    'figure',
    { class: 'chart', id: spec.id, 'data-points': spec.series.reduce((n, s) => n + s.values.length, 0) },
    h('figcaption', {}, h('h3', {}, spec.title), h('p', { class: 'muted' }, spec.summary)),
    plot,
    h('details', {}, h('summary', {}, 'Show the data as a table'), dataTable(spec)),
  );
  // uPlot measures its container, so it is built once the figure is in the document.
  requestAnimationFrame(() => {
    if (signal.aborted) return;
    const u = new uPlot(options(spec, plot.clientWidth || 600), data(spec), plot);
    const resize = new ResizeObserver(() => u.setSize({ width: plot.clientWidth || 600, height: HEIGHT }));
    resize.observe(plot);
    signal.addEventListener('abort', () => {
      resize.disconnect();
      u.destroy();
    });
  });
  return figure;
}

function data(spec: ChartSpec): uPlot.AlignedData {
  const xs = spec.time ? (spec.x as number[]) : spec.x.map((_, i) => i);
  return [xs, ...spec.series.map((s) => s.values)];
}

function options(spec: ChartSpec, width: number): uPlot.Options {
  const categories = !spec.time;
  const n = spec.series.length;
  const labelOf = (i: number) => String(spec.x[Math.round(i)] ?? '');
  return {
    width,
    height: HEIGHT,
    legend: { show: n > 1, live: false },
    cursor: { drag: { x: false, y: false } },
    scales: {
      x: categories ? { time: false, range: spec.kind === 'bars' ? [-0.5, spec.x.length - 0.5] : [0, Math.max(1, spec.x.length - 1)] } : { time: true },
      y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] },
    },
    axes: [
      categories
        ? { label: spec.xLabel, incrs: [1], values: (_u, splits) => splits.map((i) => clip(labelOf(i))), space: 24, gap: 4 }
        : { label: spec.xLabel },
      { size: 56 },
    ],
    series: [
      {},
      ...spec.series.map((s, i) => {
        const colour = PALETTE[i % PALETTE.length];
        if (spec.kind === 'lines') return { label: s.label, stroke: colour, width: 2, points: { show: spec.x.length < 40 } };
        // Side by side: each of n series takes its share of the category's width.
        const bars = uPlot.paths.bars!({ size: [0.7 / n, 80], align: n === 1 ? 0 : i === 0 ? -1 : 1 });
        return { label: s.label, fill: colour, stroke: colour, paths: bars, points: { show: false } };
      }),
    ],
  };
}

const clip = (label: string) => (label.length > 14 ? `${label.slice(0, 13)}…` : label);

function dataTable(spec: ChartSpec): HTMLElement {
  const rows = spec.x.map((x, i) => ({ x, i }));
  const columns: Column<{ x: string | number; i: number }>[] = [
    { label: spec.xLabel, cell: (r) => (spec.time ? new Date((r.x as number) * 1000).toISOString().replace('.000Z', 'Z') : String(r.x)) },
    ...spec.series.map((s) => ({ label: s.label, numeric: true, cell: (r: { i: number }): Child => String(s.values[r.i] ?? 0) })),
  ];
  return table(spec.title, columns, rows);
}
