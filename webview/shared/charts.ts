/**
 * Small SVG charts drawn with DOM calls: presentation attributes, not style attributes, so they
 * work under the panels' strict CSP. Colours come from the theme's CSS variables via classes.
 */
const SVG = 'http://www.w3.org/2000/svg';

function el<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number>,
): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

export interface Bar {
  label: string;
  value: number;
  /** CSS class for the bar (e.g. 'bar-strong', 'bar-weak'). */
  cls?: string;
  title?: string;
}

/** Horizontal bars on a fixed [min, max] scale, with a labelled threshold line when given. */
export function barChart(
  bars: Bar[],
  opts: {
    min?: number;
    max?: number;
    width?: number;
    threshold?: number;
    format?: (v: number) => string;
  } = {},
): SVGSVGElement {
  const min = opts.min ?? 0;
  const max = opts.max ?? 1;
  const width = opts.width ?? 360;
  const labelW = 130;
  const rowH = 20;
  const height = bars.length * rowH + 6;
  const fmt = opts.format ?? ((v: number) => v.toFixed(2));
  const x = (v: number) =>
    labelW + ((Math.max(min, Math.min(max, v)) - min) / (max - min || 1)) * (width - labelW - 44);
  const svg = el('svg', { width, height, viewBox: `0 0 ${width} ${height}`, class: 'chart', role: 'img' });
  bars.forEach((b, i) => {
    const y = i * rowH + 3;
    const label = el('text', { x: 0, y: y + 13, class: 'chart-label' });
    label.textContent = b.label;
    const zero = x(Math.max(min, 0));
    const end = x(b.value);
    const rect = el('rect', {
      x: Math.min(zero, end),
      y,
      width: Math.max(1, Math.abs(end - zero)),
      height: rowH - 6,
      rx: 2,
      class: `chart-bar ${b.cls ?? ''}`,
    });
    if (b.title) {
      const t = el('title', {});
      t.textContent = b.title;
      rect.append(t);
    }
    const value = el('text', { x: Math.max(zero, end) + 4, y: y + 13, class: 'chart-value' });
    value.textContent = fmt(b.value);
    svg.append(label, rect, value);
  });
  if (opts.threshold !== undefined) {
    const tx = x(opts.threshold);
    svg.append(el('line', { x1: tx, x2: tx, y1: 0, y2: height, class: 'chart-threshold' }));
  }
  return svg;
}

/** Dots for repeated judge scores of each answer on [0, 1]: spread shows (in)consistency. */
export function dotStrip(
  rows: { label: string; values: number[]; cls?: string }[],
  width = 360,
): SVGSVGElement {
  const labelW = 130;
  const rowH = 20;
  const height = rows.length * rowH + 6;
  const x = (v: number) => labelW + v * (width - labelW - 10);
  const svg = el('svg', { width, height, viewBox: `0 0 ${width} ${height}`, class: 'chart', role: 'img' });
  rows.forEach((r, i) => {
    const y = i * rowH + 3 + 7;
    const label = el('text', { x: 0, y: y + 5, class: 'chart-label' });
    label.textContent = r.label;
    svg.append(label, el('line', { x1: labelW, x2: width - 10, y1: y, y2: y, class: 'chart-axis' }));
    for (const v of r.values)
      svg.append(el('circle', { cx: x(v), cy: y, r: 4, class: `chart-dot ${r.cls ?? ''}` }));
  });
  return svg;
}

export const CHART_CSS = `
.chart { display: block; margin: 4px 0; overflow: visible; }
.chart-label, .chart-value { fill: var(--vscode-foreground); font-size: 11px; font-family: var(--vscode-font-family); }
.chart-bar { fill: var(--vscode-charts-blue); }
.chart-bar.bar-strong, .chart-dot.bar-strong { fill: var(--vscode-charts-green); }
.chart-bar.bar-weak, .chart-dot.bar-weak { fill: var(--vscode-charts-orange); }
.chart-bar.bar-bad { fill: var(--vscode-charts-red); }
.chart-dot { fill: var(--vscode-charts-blue); fill-opacity: 0.75; }
.chart-axis { stroke: var(--vscode-panel-border); }
.chart-threshold { stroke: var(--vscode-charts-red); stroke-dasharray: 3 2; }
`;

export interface Series {
  label: string;
  points: { x: number; y: number }[];
  /** CSS class for the line (e.g. 'line-a', 'line-b'); colours come from the theme. */
  cls?: string;
}

/** Line chart of one or more series over a shared step axis, with min/max labels on the y axis. */
export function lineChart(
  series: Series[],
  opts: { width?: number; height?: number; format?: (v: number) => string } = {},
): SVGSVGElement {
  const width = opts.width ?? 360;
  const height = opts.height ?? 120;
  const fmt = opts.format ?? ((v: number) => (Math.abs(v) >= 100 ? v.toFixed(0) : v.toPrecision(3)));
  const pts = series.flatMap((s) => s.points).filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
  const svg = el('svg', { width, height, viewBox: `0 0 ${width} ${height}`, class: 'chart', role: 'img' });
  if (!pts.length) return svg;
  const [x0, x1] = [Math.min(...pts.map((p) => p.x)), Math.max(...pts.map((p) => p.x))];
  const [y0, y1] = [Math.min(...pts.map((p) => p.y)), Math.max(...pts.map((p) => p.y))];
  const left = 44;
  const bottom = height - 16;
  const sx = (v: number) => left + ((v - x0) / (x1 - x0 || 1)) * (width - left - 8);
  const sy = (v: number) => bottom - ((v - y0) / (y1 - y0 || 1)) * (bottom - 6);
  svg.append(
    el('line', { x1: left, x2: width - 8, y1: bottom, y2: bottom, class: 'chart-axis' }),
    el('line', { x1: left, x2: left, y1: 6, y2: bottom, class: 'chart-axis' }),
  );
  const label = (text: string, x: number, y: number) => {
    const t = el('text', { x, y, class: 'chart-label' });
    t.textContent = text;
    svg.append(t);
  };
  label(fmt(y1), 0, 12);
  label(fmt(y0), 0, bottom);
  label(`step ${x0}`, left, height - 2);
  label(`${x1}`, width - 30, height - 2);
  series.forEach((s, i) => {
    const d = s.points
      .filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y))
      .map((p, j) => `${j ? 'L' : 'M'}${sx(p.x).toFixed(1)},${sy(p.y).toFixed(1)}`)
      .join(' ');
    const path = el('path', { d, fill: 'none', class: `chart-line ${s.cls ?? `line-${i % 4}`}` });
    const t = el('title', {});
    t.textContent = s.label;
    path.append(t);
    svg.append(path);
  });
  return svg;
}

export const LINE_CHART_CSS = `
.chart-line { stroke-width: 1.5; stroke: var(--vscode-charts-blue); }
.chart-line.line-1 { stroke: var(--vscode-charts-orange); }
.chart-line.line-2 { stroke: var(--vscode-charts-green); }
.chart-line.line-3 { stroke: var(--vscode-charts-purple); }
`;
