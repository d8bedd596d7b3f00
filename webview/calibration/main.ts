import { connect, h, injectStyles } from '../shared/host';
import baseCss from '../shared/base.css';
import { CHART_CSS } from '../shared/charts';
import type { CalibrationHost, ProveView } from '../../src/shared/protocols/prove';
import type { Calibration } from '../../src/core/prove/calibration';

injectStyles(baseCss);
injectStyles(CHART_CSS);
injectStyles(
  `.diagram text { fill: var(--vscode-foreground); font-size: 11px; } .ideal { stroke: var(--vscode-descriptionForeground); stroke-dasharray: 4 3; }`,
);

const rpc = connect<ProveView, CalibrationHost>();
const app = document.getElementById('app')!;
const SVG = 'http://www.w3.org/2000/svg';
const el = (tag: string, attrs: Record<string, string | number>) => {
  const n = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, String(v));
  return n;
};

/** Reliability diagram: for each self-score bin, the mean verifier score; the diagonal is perfect honesty. */
function diagram(c: Calibration): SVGElement {
  const W = 360;
  const H = 260;
  const pad = 40;
  const x = (v: number) => pad + v * (W - 2 * pad);
  const y = (v: number) => H - pad - v * (H - 2 * pad);
  const svg = el('svg', {
    width: W,
    height: H,
    viewBox: `0 0 ${W} ${H}`,
    class: 'chart diagram',
    role: 'img',
  });
  svg.append(
    el('line', { x1: x(0), y1: y(0), x2: x(1), y2: y(0), class: 'chart-axis' }),
    el('line', { x1: x(0), y1: y(0), x2: x(0), y2: y(1), class: 'chart-axis' }),
  );
  svg.append(el('line', { x1: x(0), y1: y(0), x2: x(1), y2: y(1), class: 'ideal' }));
  for (const t of [0, 0.5, 1]) {
    const tx = el('text', { x: x(t) - 6, y: H - pad + 16 });
    tx.textContent = String(t);
    const ty = el('text', { x: pad - 28, y: y(t) + 4 });
    ty.textContent = String(t);
    svg.append(tx, ty);
  }
  const xl = el('text', { x: W / 2 - 40, y: H - 6 });
  xl.textContent = 'self-score';
  const yl = el('text', { x: 4, y: 14 });
  yl.textContent = 'mean verifier score';
  svg.append(xl, yl);
  for (const b of c.bins) {
    if (b.meanVerifier === null) continue;
    const bw = 36;
    svg.append(
      el('rect', {
        x: x(b.selfScore) - bw / 2,
        y: y(b.meanVerifier),
        width: bw,
        height: Math.max(1, y(0) - y(b.meanVerifier)),
        class: `chart-bar ${Math.abs(b.gap ?? 0) > 0.25 ? 'bar-bad' : 'bar-strong'}`,
        'fill-opacity': 0.8,
      }),
    );
    const n = el('text', { x: x(b.selfScore) - 10, y: y(b.meanVerifier) - 4 });
    n.textContent = `n=${b.count}`;
    svg.append(n);
  }
  return svg as SVGElement;
}

rpc.request('calibration', null, 60_000).then(
  ({ calibration: c, runs, skipped }) => {
    const f = (v: number | null) => (v === null ? '—' : v.toFixed(3));
    app.replaceChildren(
      h('h1', {}, 'Calibration of self-evaluation'),
      h(
        'p',
        { class: 'muted' },
        `${c.count} proofs with both a self-score and a verifier score, from ${runs} saved run(s).`,
      ),
      h(
        'div',
        { class: 'row' },
        h(
          'div',
          { class: 'card', id: 'mae' },
          h('div', { class: 'muted' }, 'mean |self − verifier|'),
          h('strong', {}, f(c.meanAbsoluteError)),
        ),
        h(
          'div',
          { class: 'card', id: 'bias' },
          h('div', { class: 'muted' }, 'bias (self − verifier)'),
          h('strong', {}, f(c.bias)),
          h(
            'div',
            { class: 'muted' },
            c.bias !== null && c.bias > 0 ? 'optimistic' : c.bias !== null && c.bias < 0 ? 'pessimistic' : '',
          ),
        ),
      ),
      c.count
        ? diagram(c)
        : h('p', {}, 'No calibration data yet: run "Stepwise: Prove and Self-Verify" a few times.'),
      h(
        'p',
        { class: 'muted' },
        'An honest generator sits on the dashed diagonal: when it claims 1, the verifier agrees; when it claims 0, the verifier finds the flaw.',
      ),
      ...(skipped.length
        ? [
            h(
              'p',
              { class: 'error' },
              `Skipped ${skipped.length} unreadable run file(s): ${skipped.join('; ')}`,
            ),
          ]
        : []),
    );
  },
  (err: Error) => app.replaceChildren(h('p', { class: 'error' }, err.message)),
);
