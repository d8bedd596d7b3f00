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
