import { connect, h, injectStyles, loadState, saveState } from '../shared/host';
import baseCss from '../shared/base.css';
import { CHART_CSS, LINE_CHART_CSS, lineChart, type Series } from '../shared/charts';
import type { TrainHost, TrainView, TrainingState } from '../../src/shared/protocols/train';

injectStyles(baseCss);
injectStyles(CHART_CSS);
injectStyles(LINE_CHART_CSS);
injectStyles(`
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(360px, 1fr)); gap: 12px; }
.status.done { color: var(--vscode-testing-iconPassed); }
.status.error, .status.crashed { color: var(--vscode-testing-iconFailed); }
table.metrics td { padding: 2px 12px 2px 0; }
button { font: inherit; padding: 4px 14px; border: none; border-radius: 2px; cursor: pointer; color: var(--vscode-button-foreground); background: var(--vscode-button-background); }
`);

const rpc = connect<TrainView, TrainHost>();
const app = document.getElementById('app')!;
let state: TrainingState | null = loadState<TrainingState | null>() ?? null;

/** One series per metric key, grouped into charts: losses together, rewards together, the rest alone. */
function metricSeries(s: TrainingState): Map<string, Series[]> {
  const byKey = new Map<string, Series>();
  for (const e of s.events) {
    if (e.type !== 'metric') continue;
    for (const [k, v] of Object.entries(e.data)) {
      const series = byKey.get(k) ?? { label: k, points: [] };
      series.points.push({ x: e.step, y: v });
      byKey.set(k, series);
    }
  }
  const groups = new Map<string, Series[]>();
  for (const [k, series] of byKey) {
    // One-off values (runtime, before/after evaluations) are final metrics, not curves.
    if (series.points.length < 2 || /^(before|after)\//.test(k)) continue;
    const group = /loss/i.test(k) ? 'loss' : /reward/i.test(k) ? 'reward' : k;
    groups.set(group, [...(groups.get(group) ?? []), series]);
  }
  return groups;
}

function render(): void {
  saveState(state);
  if (!state) {
    app.replaceChildren(h('p', {}, 'No training run yet. Run "Stepwise: Train from Annotations".'));
    return;
  }
  const s = state;
  const last = [...s.events].reverse().find((e) => e.type === 'progress');
  const header = h(
    'p',
    {},
    h('strong', {}, `Job ${s.job}`),
    ` — run folder ${s.runDir} — `,
    h('span', { class: `status ${s.status}` }, s.status),
    last && last.type === 'progress' ? ` — step ${last.step} of ${last.totalSteps}` : '',
  );
  const parts: (Node | string)[] = [h('h2', {}, 'Training'), header];
  if (s.message) parts.push(h('p', { class: `status ${s.status}` }, s.message));
  if (s.status === 'running') {
    const cancel = h('button', {}, 'Cancel (saves a checkpoint)');
    cancel.addEventListener('click', () => void rpc.request('cancel', null));
    parts.push(cancel);
  }
  const charts = h('div', { class: 'charts' });
  for (const [group, series] of metricSeries(s)) {
    const legend = series.map((x) => x.label).join(', ');
    charts.append(h('section', {}, h('h3', {}, group), lineChart(series), h('small', {}, legend)));
  }
  parts.push(charts);
  const checkpoints = s.events.filter((e) => e.type === 'checkpoint');
  if (checkpoints.length) {
    parts.push(
      h('h3', {}, 'Checkpoints'),
      h(
        'ul',
        {},
        ...checkpoints.map((c) => h('li', {}, c.type === 'checkpoint' ? `step ${c.step}: ${c.path}` : '')),
      ),
    );
  }
  const done = s.events.find((e) => e.type === 'done');
  if (done && done.type === 'done') {
    const rows = Object.entries(done.metrics).map(([k, v]) =>
      h('tr', {}, h('td', {}, k), h('td', {}, v.toFixed(4))),
    );
    parts.push(
      h('h3', {}, 'Final metrics'),
      h('table', { class: 'metrics' }, ...rows),
      h('p', {}, `Model: ${done.output}${done.onnx ? ` — ONNX: ${done.onnx}` : ''}`),
    );
  }
  app.replaceChildren(...parts);
}

rpc.on('started', ({ job, runDir }) => {
  state = { job, runDir, events: [], status: 'running' };
  render();
});
rpc.on('event', (e) => {
  if (!state) return;
  state.events.push(e);
  render();
});
rpc.on('finished', ({ status, message }) => {
  if (!state) return;
  state.status = status;
  state.message = message;
  render();
});
render();
void rpc.request('state', null).then((s) => {
  if (s) state = s;
  render();
});
