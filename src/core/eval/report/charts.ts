/**
 * Inline SVG charts for the evaluation report: line/point charts (reliability diagrams, ROC
 * curves, accuracy per round, with interval whiskers) and bar charts (histograms, best-of-N).
 * No scripts and no `style` attributes — colours come from CSS classes (`s0`…`s4`), so the
 * charts render under a strict Content Security Policy and follow the page's theme.
 */
import { escapeHtml } from '../../text/htmlPage';

export interface ChartPoint {
  x: number;
  y: number;
  /** An interval on y, drawn as a whisker. */
  low?: number | null;
  high?: number | null;
  /** Marker radius in pixels (e.g. by the number of points in a reliability bin). */
  radius?: number;
  label?: string;
}

export interface Series {
  name: string;
  points: ChartPoint[];
  markers?: boolean;
}

export interface LineChartSpec {
  title: string;
  xLabel: string;
  yLabel: string;
  x: [number, number];
  y: [number, number];
  series: Series[];
  /** The y = x line (perfect calibration, chance ROC). */
  diagonal?: boolean;
  /** Whole-number x ticks only (rounds). */
  integerX?: boolean;
}

export interface Bar {
  label: string;
  value: number | null;
  low?: number | null;
  high?: number | null;
  /** Text above the bar, e.g. "12" or "0.43 (n=50)". */
  note?: string;
}

export interface BarChartSpec {
  title: string;
  yLabel: string;
  y: [number, number];
  bars: Bar[];
  xLabel?: string;
}

const W = 440;
const H = 300;
const M = { left: 52, right: 16, top: 34, bottom: 48 };

const f = (n: number) => (Math.round(n * 10) / 10).toString();

function ticks(lo: number, hi: number, integer: boolean): number[] {
  if (integer) {
    const step = Math.max(1, Math.ceil((hi - lo) / 8));
    const out: number[] = [];
    for (let v = Math.ceil(lo); v <= hi; v += step) out.push(v);
    return out;
  }
  return Array.from({ length: 6 }, (_, i) => lo + ((hi - lo) * i) / 5);
}

/** The chart's frame; the legend goes in rows below the plot, so it never covers data. */
function frame(
  spec: { title: string; xLabel?: string; yLabel: string },
  body: string[],
  legend: string[] = [],
): string {
  const laid = layoutLegend(legend);
  const rows = laid.length ? laid[laid.length - 1].row + 1 : 0;
  const height = H + rows * LEGEND_ROW + (rows ? 8 : 0);
  return [
    `<svg class="chart" viewBox="0 0 ${W} ${height}" width="${W}" height="${height}" role="img" aria-label="${escapeHtml(spec.title)}">`,
    `<title>${escapeHtml(spec.title)}</title>`,
    `<text class="chart-title" x="${W / 2}" y="18" text-anchor="middle">${escapeHtml(spec.title)}</text>`,
    ...body,
    spec.xLabel
      ? `<text class="axis-label" x="${M.left + (W - M.left - M.right) / 2}" y="${H - 8}" text-anchor="middle">${escapeHtml(spec.xLabel)}</text>`
      : '',
    `<text class="axis-label" transform="translate(13 ${M.top + (H - M.top - M.bottom) / 2}) rotate(-90)" text-anchor="middle">${escapeHtml(spec.yLabel)}</text>`,
    laid.length ? legendSvg(laid) : '',
    '</svg>',
  ].join('\n');
}

function scales(x: [number, number], y: [number, number]) {
  const sx = (v: number) => M.left + ((v - x[0]) / (x[1] - x[0] || 1)) * (W - M.left - M.right);
  const sy = (v: number) => H - M.bottom - ((v - y[0]) / (y[1] - y[0] || 1)) * (H - M.top - M.bottom);
  return { sx, sy };
}

function yAxis(y: [number, number], sy: (v: number) => number): string[] {
  return ticks(y[0], y[1], false).flatMap((t) => [
    `<line class="grid" x1="${M.left}" x2="${W - M.right}" y1="${f(sy(t))}" y2="${f(sy(t))}"/>`,
    `<text class="tick" x="${M.left - 6}" y="${f(sy(t) + 4)}" text-anchor="end">${fmtTick(t)}</text>`,
  ]);
}

function fmtTick(t: number): string {
  return Number.isInteger(t) ? String(t) : t.toFixed(t * 10 === Math.round(t * 10) ? 1 : 2);
}

export function lineChart(spec: LineChartSpec): string {
  const { sx, sy } = scales(spec.x, spec.y);
  const body: string[] = [...yAxis(spec.y, sy)];
  for (const t of ticks(spec.x[0], spec.x[1], !!spec.integerX))
    body.push(
      `<line class="grid" x1="${f(sx(t))}" x2="${f(sx(t))}" y1="${M.top}" y2="${H - M.bottom}"/>`,
      `<text class="tick" x="${f(sx(t))}" y="${H - M.bottom + 16}" text-anchor="middle">${fmtTick(t)}</text>`,
    );
  body.push(
    `<line class="axis" x1="${M.left}" x2="${W - M.right}" y1="${H - M.bottom}" y2="${H - M.bottom}"/>`,
    `<line class="axis" x1="${M.left}" x2="${M.left}" y1="${M.top}" y2="${H - M.bottom}"/>`,
  );
  if (spec.diagonal)
    body.push(
      `<line class="diagonal" x1="${f(sx(spec.x[0]))}" y1="${f(sy(spec.y[0]))}" x2="${f(sx(spec.x[1]))}" y2="${f(sy(spec.y[1]))}"/>`,
    );
  spec.series.forEach((s, i) => {
    const cls = `s${i % 5}`;
    const pts = s.points;
    if (pts.length > 1)
      body.push(
        `<polyline class="line ${cls}" points="${pts.map((p) => `${f(sx(p.x))},${f(sy(p.y))}`).join(' ')}"/>`,
      );
    for (const p of pts) {
      if (p.low != null && p.high != null)
        body.push(
          `<line class="whisker ${cls}" x1="${f(sx(p.x))}" x2="${f(sx(p.x))}" y1="${f(sy(p.low))}" y2="${f(sy(p.high))}"/>`,
        );
      if (s.markers !== false)
        body.push(
          `<circle class="marker ${cls}" cx="${f(sx(p.x))}" cy="${f(sy(p.y))}" r="${f(p.radius ?? 3.5)}">${p.label ? `<title>${escapeHtml(p.label)}</title>` : ''}</circle>`,
        );
    }
  });
  return frame(
    spec,
    body,
    spec.series.map((x) => x.name),
  );
}

const LEGEND_ROW = 16;
const itemWidth = (name: string) => 24 + name.length * 6;

/** Legend entries flow in rows under the plot, as many per row as fit. */
function layoutLegend(names: string[]): { name: string; x: number; row: number }[] {
  const out: { name: string; x: number; row: number }[] = [];
  let x = M.left;
  let row = 0;
  for (const name of names) {
    if (x > M.left && x + itemWidth(name) > W - M.right) {
      row++;
      x = M.left;
    }
    out.push({ name, x, row });
    x += itemWidth(name);
  }
  return out;
}

function legendSvg(laid: { name: string; x: number; row: number }[]): string {
  const items = laid.map(({ name, x, row }, i) => {
    const y = H + 10 + row * LEGEND_ROW;
    return `<rect class="swatch s${i % 5}" x="${x}" y="${y - 9}" width="10" height="10"/><text class="legend" x="${x + 14}" y="${y}">${escapeHtml(name)}</text>`;
  });
  return `<g class="legend-box">${items.join('')}</g>`;
}

export function barChart(spec: BarChartSpec): string {
  const { sy } = scales([0, 1], spec.y);
  const body: string[] = [...yAxis(spec.y, sy)];
  const inner = W - M.left - M.right;
  const slot = inner / Math.max(1, spec.bars.length);
  const width = Math.min(56, slot * 0.7);
  spec.bars.forEach((b, i) => {
    const cx = M.left + slot * (i + 0.5);
    body.push(
      `<text class="tick" x="${f(cx)}" y="${H - M.bottom + 16}" text-anchor="middle">${escapeHtml(b.label)}</text>`,
    );
    if (b.value === null) {
      body.push(`<text class="note" x="${f(cx)}" y="${H - M.bottom - 6}" text-anchor="middle">n/a</text>`);
      return;
    }
    const top = sy(Math.max(spec.y[0], Math.min(spec.y[1], b.value)));
    body.push(
      `<rect class="bar s${i % 5}" x="${f(cx - width / 2)}" y="${f(top)}" width="${f(width)}" height="${f(H - M.bottom - top)}"><title>${escapeHtml(`${b.label}: ${b.note ?? fmtTick(b.value)}`)}</title></rect>`,
    );
    if (b.low != null && b.high != null)
      body.push(
        `<line class="whisker" x1="${f(cx)}" x2="${f(cx)}" y1="${f(sy(b.low))}" y2="${f(sy(b.high))}"/>`,
        `<line class="whisker" x1="${f(cx - 6)}" x2="${f(cx + 6)}" y1="${f(sy(b.low))}" y2="${f(sy(b.low))}"/>`,
        `<line class="whisker" x1="${f(cx - 6)}" x2="${f(cx + 6)}" y1="${f(sy(b.high))}" y2="${f(sy(b.high))}"/>`,
      );
    if (b.note)
      body.push(
        `<text class="note" x="${f(cx)}" y="${f(Math.min(top, b.high != null ? sy(b.high) : top) - 5)}" text-anchor="middle">${escapeHtml(b.note)}</text>`,
      );
  });
  body.push(
    `<line class="axis" x1="${M.left}" x2="${W - M.right}" y1="${H - M.bottom}" y2="${H - M.bottom}"/>`,
  );
  return frame(spec, body);
}
