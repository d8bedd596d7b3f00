import { connect, h, injectStyles, loadState, saveState } from '../shared/host';
import baseCss from '../shared/base.css';
import { barChart, dotStrip, CHART_CSS } from '../shared/charts';
import type { PracticeHost, PracticeView } from '../../src/shared/protocols/practice';
import type { PracticeQuestion, PracticeSet } from '../../src/shared/protocols/practice';

injectStyles(baseCss);
injectStyles(CHART_CSS);
injectStyles(`
.question { border: 1px solid var(--vscode-panel-border); border-radius: 6px; padding: 10px 14px; margin: 12px 0; }
.question.kept { border-left: 4px solid var(--vscode-testing-iconPassed); }
.question.discarded { border-left: 4px solid var(--vscode-testing-iconFailed); opacity: 0.92; }
.grid2 { display: grid; grid-template-columns: repeat(auto-fit, minmax(340px, 1fr)); gap: 12px; }
details.answer { margin: 4px 0; }
details.answer summary { cursor: pointer; }
.kept-label { color: var(--vscode-testing-iconPassed); font-weight: 600; }
.discarded-label { color: var(--vscode-testing-iconFailed); font-weight: 600; }
button { font: inherit; padding: 4px 14px; border: none; border-radius: 2px; cursor: pointer; color: var(--vscode-button-foreground); background: var(--vscode-button-background); }
button.secondary { color: var(--vscode-button-secondaryForeground); background: var(--vscode-button-secondaryBackground); }
`);

interface State {
  set: PracticeSet | null;
  file?: string;
}
const rpc = connect<PracticeView, PracticeHost>();
const app = document.getElementById('app')!;
let state: State = loadState<State>() ?? { set: null };
let progress = '';

function questionCard(q: PracticeQuestion, t: PracticeSet['options']['thresholds']): HTMLElement {
  const r = q.reliability;
  const metrics = barChart(
    [
      {
        label: 'R_cons',
        value: r.rCons,
        cls: r.rCons >= t.cons ? '' : 'bar-bad',
        title: `threshold ${t.cons}`,
      },
      {
        label: 'R_sep',
        value: r.rSep ?? 0,
        cls: r.rSep !== null && r.rSep >= t.sep ? '' : 'bar-bad',
        title: r.rSep === null ? 'unmeasurable' : `threshold ${t.sep}`,
      },
      {
        label: 'R_stab',
        value: r.rStab,
        cls: r.rStab >= t.stab ? '' : 'bar-bad',
        title: `threshold ${t.stab}`,
      },
      { label: 'R_G', value: q.rG },
    ],
    { min: -1, max: 1 },
  );
  const scores = dotStrip(
    q.answers.map((a) => ({
      label: a.regime,
      values: q.scores[a.id] ?? [],
      cls: a.strength === 'strong' ? 'bar-strong' : 'bar-weak',
    })),
  );
  const answers = q.answers.map((a) =>
    h(
      'details',
      { class: 'answer' },
      h(
        'summary',
        {},
        `${a.regime} (${a.strength}) · judge: ${(q.scores[a.id] ?? []).map((s) => s.toFixed(1)).join(', ') || 'no valid score'}`,
      ),
      h('pre', {}, a.text || '(empty answer)'),
    ),
  );
  return h(
    'div',
    { class: `question ${q.kept ? 'kept' : 'discarded'}`, 'data-question': q.id },
    h(
      'div',
      { class: 'row' },
      h('span', { class: q.kept ? 'kept-label' : 'discarded-label' }, q.kept ? '✓ kept' : '✗ discarded'),
      h('span', { class: 'muted' }, q.reasons.join('; ')),
    ),
    h('p', {}, h('strong', {}, 'Problem: '), q.question),
    h(
      'div',
      { class: 'grid2' },
      h(
        'div',
        {},
        h('strong', {}, 'Reliability'),
        metrics,
        ...r.notes.map((n) => h('p', { class: 'muted' }, n)),
      ),
      h(
        'div',
        {},
        h('strong', {}, 'Repeated judge scores (0–1)'),
        scores,
        h('p', { class: 'muted' }, `${q.judgeFailures} unreadable judgments`),
      ),
    ),
    h('strong', {}, 'Answers by regime'),
    ...answers,
  );
}

function render(): void {
  const set = state.set;
  if (!set) {
    app.replaceChildren(
      h('h1', {}, 'Practice Set'),
      h('p', { class: 'loading', id: 'progress' }, progress || 'Generating…'),
    );
    return;
  }
  const kept = set.questions.filter((q) => q.kept).length;
  const exportButton = h('button', { id: 'export' }, 'Export DPO pairs and rewards');
  const note = h('span', { class: 'muted', id: 'export-result' });
  exportButton.addEventListener('click', async () => {
    try {
      const r = await rpc.request('export', null);
      note.textContent = `${r.pairs} DPO pairs → ${r.dpo}`;
    } catch (err) {
      note.textContent = (err as Error).message;
    }
  });
  const overview = barChart(
    set.questions.map((q, i) => ({
      label: `Q${i + 1} R_G`,
      value: q.rG,
      cls: q.kept ? 'bar-strong' : 'bar-bad',
    })),
    { min: -1, max: 1 },
  );
  app.replaceChildren(
    h('h1', {}, 'Practice Set'),
    h(
      'p',
      { class: 'muted', id: 'summary' },
      `${kept} of ${set.questions.length} questions kept · ${set.model} · ${(set.totalMs / 1000).toFixed(0)} s${state.file ? ` · ${state.file}` : ''}`,
    ),
    set.judging
      ? h(
          'p',
          { class: 'muted', id: 'judging' },
          set.judging.mode === 'constrained'
            ? `Judge: constrained (${set.judging.planMode}): every score is a distribution over 0–10 (its expected value is shown), every verdict P(A) from both orders.`
            : `Judge: free text, parsed — ${set.judging.fallbackReason ?? ''}`,
        )
      : h('span'),
    h('div', { class: 'row' }, exportButton, note),
    h('h2', {}, 'Question reward R_G'),
    overview,
    h('h2', {}, 'Questions'),
    ...set.questions.map((q) => questionCard(q, set.options.thresholds)),
  );
}

/** What is being generated, kept in front of every progress line. */
let generating = '';
rpc.on('started', ({ topic }) => {
  state = { set: null };
  saveState(state);
  generating = topic ? `Practice set on ${topic}` : 'Practice set';
  progress = `${generating}: starting…`;
  render();
});
rpc.on('progress', (p) => {
  const step = `${p.question} of ${p.of}: ${p.phase}…`;
  progress = generating ? `${generating} — question ${step}` : `Question ${step}`;
  if (!state.set) render();
});
rpc.on('set', ({ set, file }) => {
  state = { set, file };
  saveState(state);
  render();
});
render();
rpc.request('state', null).then(
  (s) => {
    if (s.set) {
      state = s;
      render();
    }
  },
  () => undefined,
);
