import { connect, h, injectStyles } from '../shared/host';
import { smallSampleWarning } from '../../src/core/math/sampleSize';
import baseCss from '../shared/base.css';
import { CHART_CSS } from '../shared/charts';
import type { CalibrationHost, ProveView } from '../../src/shared/protocols/prove';
import type { CalibrationReport, ScoreCalibration } from '../../src/shared/protocols/prove';

injectStyles(baseCss);
injectStyles(CHART_CSS);
injectStyles(`
.diagram text { fill: var(--vscode-foreground); font-size: 11px; }
.ideal { stroke: var(--vscode-descriptionForeground); stroke-dasharray: 4 3; }
.gap { fill: var(--vscode-charts-red); fill-opacity: 0.12; stroke: var(--vscode-charts-red); stroke-dasharray: 3 2; }
.panels { display: flex; flex-wrap: wrap; gap: 18px; }
.panel { border: 1px solid var(--vscode-panel-border); border-radius: 6px; padding: 8px 12px; }
.panel h2 { margin-top: 4px; }
.figures { display: flex; gap: 16px; margin: 4px 0; }
.figures div strong { font-size: 1.3em; }
`);

const rpc = connect<ProveView, CalibrationHost>();
const app = document.getElementById('app')!;
const SVG = 'http://www.w3.org/2000/svg';
const el = (tag: string, attrs: Record<string, string | number>, text?: string) => {
  const n = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, String(v));
  if (text !== undefined) n.textContent = text;
  return n;
};
const f = (v: number | null, digits = 3) => (v === null ? '—' : v.toFixed(digits));
const percentRight = (v: number) => `${Math.round(v * 100)}% right`;

/**
 * Reliability diagram: one bar per confidence bin, as tall as the share that was right (the mean
 * outcome); the red band is the gap to the diagonal, where a calibrated score would sit.
 */
function diagram(
  c: ScoreCalibration,
  xLabel: string,
  yLabel: string,
  outcome: (v: number) => string,
): SVGElement {
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
    el('line', { x1: x(0), y1: y(0), x2: x(1), y2: y(1), class: 'ideal' }),
  );
  for (const t of [0, 0.5, 1]) {
    svg.append(
      el('text', { x: x(t) - 6, y: H - pad + 16 }, String(t)),
      el('text', { x: pad - 28, y: y(t) + 4 }, String(t)),
    );
  }
  svg.append(el('text', { x: W / 2 - 60, y: H - 6 }, xLabel), el('text', { x: 4, y: 14 }, yLabel));
  for (const b of c.bins) {
    if (b.meanOutcome === null || b.meanConfidence === null) continue;
    const left = x(b.lower) + 1;
    const width = x(b.upper) - x(b.lower) - 2;
    svg.append(
      el('rect', {
        x: left,
        y: y(b.meanOutcome),
        width,
        height: Math.max(1, y(0) - y(b.meanOutcome)),
        class: `chart-bar ${Math.abs(b.meanConfidence - b.meanOutcome) > 0.25 ? 'bar-bad' : 'bar-strong'}`,
        'fill-opacity': 0.8,
        'data-bin': b.lower.toFixed(1),
      }),
      el('rect', {
        x: left,
        y: y(Math.max(b.meanConfidence, b.meanOutcome)),
        width,
        height: Math.abs(y(b.meanConfidence) - y(b.meanOutcome)),
        class: 'gap',
      }),
      el(
        'text',
        { x: left, y: y(Math.max(b.meanConfidence, b.meanOutcome)) - 4 },
        `n=${b.count} · ${outcome(b.meanOutcome)}`,
      ),
    );
  }
  return svg as SVGElement;
}

function section(
  id: string,
  title: string,
  c: ScoreCalibration,
  labels: { x: string; y: string; outcome: (v: number) => string },
  note: string,
) {
  return h(
    'div',
    { class: 'panel', id },
    h('h2', {}, title),
    h(
      'div',
      { class: 'figures' },
      h('div', { class: 'ece' }, h('div', { class: 'muted' }, 'ECE'), h('strong', {}, f(c.ece))),
      h('div', { class: 'auroc' }, h('div', { class: 'muted' }, 'AUROC'), h('strong', {}, f(c.auroc))),
      h('div', {}, h('div', { class: 'muted' }, 'bias'), h('strong', {}, f(c.bias))),
      h('div', {}, h('div', { class: 'muted' }, 'candidates'), h('strong', {}, String(c.count))),
    ),
    smallSampleWarning(c.count, 'ECE, AUROC and bias')
      ? h('p', { class: 'warning small-sample' }, smallSampleWarning(c.count, 'ECE, AUROC and bias'))
      : null,
    c.count ? diagram(c, labels.x, labels.y, labels.outcome) : h('p', { class: 'muted' }, 'No data yet.'),
    c.count
      ? h(
          'p',
          { class: 'muted' },
          `Bars: ${labels.y} per bin of the ${labels.x}; dashed red: the gap to the diagonal, where a calibrated score would be.`,
        )
      : null,
    h('p', { class: 'muted' }, note),
  );
}

type Loaded = { report: CalibrationReport; runs: number; skipped: string[] };

/**
 * Scores of different models are different scales, so the figures are shown one generator at a
 * time (the one with most runs first) and pooled only when the person asks for it.
 */
function modelPicker(report: CalibrationReport): HTMLElement | null {
  if (report.models.length < 2) return null;
  const select = h(
    'select',
    { id: 'model', 'aria-label': 'Generator model' },
    ...report.models.map((m) =>
      h(
        'option',
        { value: m.name, ...(m.name === report.model ? { selected: '' } : {}) },
        `${m.name} (${m.runs} runs)`,
      ),
    ),
    h('option', { value: '', ...(report.model === null ? { selected: '' } : {}) }, 'all models, pooled'),
  ) as HTMLSelectElement;
  select.addEventListener('change', () => void load(select.value || null));
  return h('p', {}, h('label', { for: 'model' }, 'Runs of '), select);
}

function render({ report, runs, skipped }: Loaded): void {
  const shown =
    report.model === null ? runs : (report.models.find((m) => m.name === report.model)?.runs ?? 0);
  const of =
    report.model === null ? (report.models.length > 1 ? ', every model pooled' : '') : ` of ${report.model}`;
  app.replaceChildren(
    h('h1', {}, 'Calibration of scores'),
    modelPicker(report) ?? '',
    h(
      'p',
      { class: 'muted', id: 'summary' },
      `${shown} saved run(s)${of}: ${report.constrained} constrained and ${report.free} free candidate(s). ` +
        'Scores are expected values of their distributions. Correctness is the final boxed answer against the reference answer ' +
        '(MATH-style problems, or an "Answer:" line in the proof document).',
    ),
    h(
      'div',
      { class: 'panels' },
      section(
        'p-correct-vs-answer',
        'P(correct) against correctness',
        report.pCorrectVsAnswer,
        { x: 'P(correct)', y: 'share correct', outcome: percentRight },
        'The calibrated probability the Prove panel shows ("likely wrong (P = 0.12)"), checked on your own runs: of the candidates given P = 0.8, about 8 in 10 should be right.',
      ),
      section(
        'self-vs-answer',
        'Self-score against correctness',
        report.selfVsAnswer,
        { x: 'expected self-score', y: 'share correct', outcome: percentRight },
        'A calibrated generator that claims 0.8 is right 8 times in 10. AUROC: how well the self-score separates right answers from wrong ones (0.5 is chance).',
      ),
      section(
        'verifier-vs-answer',
        'Verifier score against correctness',
        report.verifierVsAnswer,
        { x: 'expected verifier score', y: 'share correct', outcome: percentRight },
        'The same for the verifier: does its score predict whether the answer is right?',
      ),
      section(
        'self-vs-verifier',
        'Self-score against the verifier',
        report.selfVsVerifier,
        { x: 'expected self-score', y: 'mean verifier score', outcome: (v) => `verifier ${v.toFixed(2)}` },
        'Every judged candidate, also without a reference answer: does the generator agree with its verifier? (No AUROC: verifier scores are not right/wrong labels.)',
      ),
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
    ...(runs === 0
      ? [
          h(
            'p',
            {},
            'No runs yet: run "Stepwise: Prove and Self-Verify" a few times, on problems with an "Answer:" line.',
          ),
        ]
      : []),
  );
}

/** `model`: one generator's runs, or null for every run (then, with several models, the most run). */
async function load(model: string | null, first = false): Promise<void> {
  try {
    let loaded: Loaded = await rpc.request('calibration', { model }, 60_000);
    if (first && loaded.report.models.length > 1)
      loaded = await rpc.request('calibration', { model: loaded.report.models[0].name }, 60_000);
    render(loaded);
  } catch (err) {
    app.replaceChildren(h('p', { class: 'error' }, (err as Error).message));
  }
}

void load(null, true);
