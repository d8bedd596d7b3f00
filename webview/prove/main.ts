import { connect, h, injectStyles, loadState, saveState } from '../shared/host';
import baseCss from '../shared/base.css';
import { renderMathText } from '../shared/math';
import type {
  ProveHost,
  ProveLive,
  ProveView,
  RunKind,
  StepLabelView,
} from '../../src/shared/protocols/prove';
import { checkView, liveView, progressLine, runBanner } from './runState';
import { candidateFigures } from '../../src/shared/proveFigures';
import { stepScorerText } from '../../src/core/judgment/verdictText';
import type { CandidateRecord, IterationRecord, ProveRun } from '../../src/shared/protocols/prove';
import { answerCard, fmt, generationView, modeBadge, scoreCards, SCORES_CSS } from './scores';

injectStyles(baseCss);
injectStyles(SCORES_CSS);
injectStyles(`
.timeline { display: flex; gap: 8px; flex-wrap: wrap; margin: 8px 0; }
.round { border: 1px solid var(--vscode-panel-border); border-radius: 14px; padding: 3px 12px; cursor: pointer; background: transparent; color: var(--vscode-foreground); font: inherit; }
.round.selected { border-color: var(--vscode-focusBorder); background: var(--vscode-list-activeSelectionBackground); color: var(--vscode-list-activeSelectionForeground); }
.step { display: grid; grid-template-columns: 56px 1fr auto; gap: 10px; align-items: start; border-left: 5px solid var(--vscode-panel-border); padding: 4px 8px; margin: 3px 0; background: var(--vscode-editorWidget-background); border-radius: 3px; }
.step .p { font-variant-numeric: tabular-nums; font-weight: 600; }
.step .text { white-space: pre-wrap; overflow-wrap: anywhere; }
.labels button { font: inherit; min-width: 28px; padding: 1px 6px; margin-left: 2px; border: 1px solid var(--vscode-panel-border); border-radius: 3px; background: transparent; color: var(--vscode-foreground); cursor: pointer; }
.labels button.on.pos { background: var(--vscode-testing-iconPassed); color: var(--vscode-editor-background); }
.labels button.on.neu { background: var(--vscode-descriptionForeground); color: var(--vscode-editor-background); }
.labels button.on.neg { background: var(--vscode-testing-iconFailed); color: var(--vscode-editor-background); }
.labels .stale { color: var(--vscode-editorWarning-foreground); font-size: 0.85em; }
.legend { display: flex; gap: 4px; align-items: center; font-size: 0.85em; }
.legend span.swatch { width: 18px; height: 10px; display: inline-block; border-radius: 2px; }
.math.display { margin: 4px 0; }
table.rewards td:first-child { font-family: var(--vscode-editor-font-family); }
.live pre { max-height: 300px; overflow-y: auto; }
.selftext { white-space: pre-wrap; }
button.action { font: inherit; padding: 4px 14px; border: none; border-radius: 2px; cursor: pointer; color: var(--vscode-button-secondaryForeground); background: var(--vscode-button-secondaryBackground); }
`);

interface State {
  run: ProveRun | null;
  file?: string;
  selected?: { iteration: number; candidate: number };
  /** The kind of the run shown or running, for the heading before its result arrives. */
  kind?: RunKind;
}
const rpc = connect<ProveView, ProveHost>();
const app = document.getElementById('app')!;
let state: State = loadState<State>() ?? { run: null };
let live: ProveLive | null = null;
let partial = false;
let labels: StepLabelView[] = [];

function scoreColour(p: number): string {
  return `hsl(${Math.round(p * 120)}, 65%, 42%)`;
}

function rewardTable(c: CandidateRecord, alpha: number, beta: number): HTMLElement {
  const r = c.rewards;
  const row = (name: string, formula: string, value: number | null) =>
    h('tr', {}, h('td', {}, name), h('td', { class: 'muted' }, formula), h('td', {}, fmt(value, 3)));
  return h(
    'table',
    { class: 'rewards', id: 'rewards' },
    h(
      'tbody',
      {},
      row('R_format', 'both sections, boxed self-score in {0, 0.5, 1}', r.rFormat),
      row('R_Y', 'expected verifier score of the proof', r.rY),
      row('R_score', '1 − |E[self-score] − R_Y|', r.rScore),
      row('R_meta', 'expected meta-verifier score: are the claimed issues real?', r.rMeta),
      row('R_Z', 'R_score · R_meta', r.rZ),
      row('R', `R_format · (${alpha}·R_Y + ${beta}·R_Z)`, r.r),
    ),
  );
}

function stepsView(c: CandidateRecord, iteration: number): HTMLElement {
  const container = h('div', { id: 'steps' });
  const steps = c.stepScores?.steps ?? [];
  if (!steps.length) {
    container.append(
      h('div', { class: 'card' }, renderMathText(c.parsed.proof || '(no proof was found in the output)')),
    );
    return container;
  }
  for (const s of steps) {
    const label = labels.find((l) => l.stepIndex === s.index);
    const buttons = h('span', { class: 'labels' });
    for (const [rating, text, cls] of [
      [1, '+1', 'pos'],
      [0, '0', 'neu'],
      [-1, '−1', 'neg'],
    ] as const) {
      const b = h(
        'button',
        {
          class: `${cls}${label?.rating === rating && !label.stale ? ' on' : ''}`,
          title: `Label step ${s.index + 1} as ${text}`,
          'data-rating': String(rating),
        },
        text,
      );
      b.addEventListener('click', async () => {
        const r = await rpc
          .request('label', { iteration, candidate: c.index, stepIndex: s.index, rating })
          .catch((e: Error) => {
            app.append(h('p', { class: 'error' }, e.message));
            return null;
          });
        if (r) {
          labels = r.labels;
          render();
        }
      });
      buttons.append(b);
    }
    if (label?.stale) buttons.append(h('span', { class: 'stale' }, ' stale'));
    const row = h(
      'div',
      { class: 'step', 'data-step': String(s.index), 'data-score': s.score.toFixed(4) },
      h('span', { class: 'p' }, s.score.toFixed(2)),
      h('div', { class: 'text' }, renderMathText(s.text)),
      buttons,
    );
    row.style.borderLeftColor = scoreColour(s.score);
    container.append(row);
  }
  return container;
}

/** The colour scale, and in plain words what produced the step scores. */
function legend(c: CandidateRecord): HTMLElement {
  const l = h('div', { class: 'legend' }, h('span', { class: 'muted' }, 'step score: 0'));
  for (const p of [0, 0.25, 0.5, 0.75, 1]) {
    const sw = h('span', { class: 'swatch' });
    sw.style.background = scoreColour(p);
    l.append(sw);
  }
  l.append(h('span', { class: 'muted' }, '1'));
  l.append(h('span', { class: 'muted', id: 'step-scorer' }, ` · ${stepScorerText(c.stepScores?.scorer)}`));
  return l;
}

function candidateView(run: ProveRun, it: IterationRecord, c: CandidateRecord): HTMLElement[] {
  if (run.kind === 'check') return checkView(run, c, stepsView(c, it.index), legend(c));
  const cut =
    run.status === 'cancelled' && c.finishReason !== 'stop'
      ? ' · stopped when the run was cancelled'
      : c.finishReason === 'length'
        ? ' · cut at its token limit'
        : '';
  // A cancelled run's missing parts were never asked for: no score or reward stands for them.
  if (run.status === 'cancelled')
    return [
      h('h2', {}, 'Proof, step by step ', h('span', { class: 'muted' }, cut)),
      legend(c),
      stepsView(c, it.index),
    ];
  return [
    answerCard(c) ?? h('span'),
    scoreCards(run, c),
    h('h2', {}, 'Proof, step by step ', modeBadge(c), h('span', { class: 'muted' }, cut)),
    legend(c),
    stepsView(c, it.index),
    h('h2', {}, 'Self evaluation'),
    h(
      'div',
      { class: 'card selftext' },
      renderMathText(c.parsed.selfAnalysis || '(no self evaluation was found)'),
    ),
    c.parsed.problems.length
      ? h('p', { class: 'muted' }, `Format problems: ${c.parsed.problems.join('; ')}`)
      : h('span'),
    h('h2', {}, 'Rewards'),
    rewardTable(c, run.options.alpha, run.options.beta),
    h(
      'details',
      {},
      h('summary', {}, 'Verifier and meta-verifier output'),
      ...(c.verifier?.passes ?? []).map((p, i) =>
        h(
          'pre',
          {},
          `Verifier pass ${i + 1} (expected score ${fmt(p.score)}${p.withoutReasons ? ', without reasons' : ''}):\n${p.raw}`,
        ),
      ),
      ...(c.meta?.passes ?? []).map((p, i) =>
        h(
          'pre',
          {},
          `Meta-verifier pass ${i + 1} (R_meta ${fmt(p.score)}${p.withoutReasons ? ', without reasons' : ''}):\n${p.raw}`,
        ),
      ),
    ),
  ];
}

/** Why the run stopped, in the words of the score that decided it. */
function stopText(run: ProveRun): string {
  if (run.stopReason === 'p-correct') return `P(correct) ≥ ${run.options.stopProbability}`;
  if (run.stopReason === 'self-score-1') return 'the self-evaluation boxed 1';
  return run.stopReason.replace(/-/g, ' ');
}

function render(): void {
  const run = state.run;
  const kind = run?.kind ?? state.kind ?? 'prove';
  const parts: HTMLElement[] = [h('h1', {}, kind === 'check' ? 'Check My Proof' : 'Prove and Self-Verify')];
  if (!run) {
    parts.push(live ? progressLine(live, kind) : h('p', { class: 'loading', id: 'progress' }, 'Starting…'));
  } else {
    const status = partial
      ? 'running…'
      : run.kind === 'check' || run.status !== 'completed'
        ? `${run.status} after ${(run.totalMs / 1000).toFixed(1)} s`
        : `${run.status} (${stopText(run)}) in ${(run.totalMs / 1000).toFixed(1)} s`;
    parts.push(
      h(
        'p',
        { class: 'muted', id: 'status' },
        `${run.models.generator.name} on ${run.models.generator.device} · ${run.kind === 'check' ? 'your proof' : `${run.iterations.length} round(s)`} · ${status}${state.file ? ` · ${state.file}` : ''}`,
      ),
      runBanner(run) ?? h('span'),
      h(
        'div',
        { class: 'card', id: 'problem' },
        h('strong', {}, 'Problem. '),
        renderMathText(run.problem.text),
        run.problem.referenceAnswer
          ? h('div', { class: 'muted' }, `Reference answer: ${run.problem.referenceAnswer}`)
          : null,
      ),
      generationView(run),
    );
    if (run.error)
      parts.push(
        h('p', { class: 'error' }, `${run.error.message}${run.error.hint ? ` — ${run.error.hint}` : ''}`),
      );
  }
  if (partial || !run) {
    const cancel = h('button', { class: 'action', id: 'cancel' }, 'Cancel');
    cancel.addEventListener('click', () => void rpc.request('cancel', null));
    parts.push(cancel);
  }
  if (live && (partial || !run)) parts.push(liveView(live, kind));
  if (run && run.iterations.length) {
    const sel = state.selected ?? {
      iteration: run.iterations.length - 1,
      candidate: run.iterations[run.iterations.length - 1].chosen,
    };
    const timeline = h('div', { class: 'timeline', id: 'timeline' });
    for (const it of run.iterations) {
      const c = it.candidates[it.chosen];
      const f = c && candidateFigures(c);
      const b = h(
        'button',
        { class: `round${it.index === sel.iteration ? ' selected' : ''}` },
        `${it.index + 1}. ${it.kind === 'initial' ? 'initial' : 'refinement'} · self ${fmt(f?.self)} · verifier ${fmt(f?.verifier)}${c?.answerCheck ? (c.answerCheck.matches ? ' · answer ✓' : ' · answer ✗') : ''}`,
      );
      b.addEventListener('click', () => {
        state.selected = { iteration: it.index, candidate: it.chosen };
        saveState(state);
        render();
      });
      timeline.append(b);
    }
    if (run.kind !== 'check') parts.push(h('h2', {}, 'Iterations'), timeline);
    const it = run.iterations[sel.iteration] ?? run.iterations[run.iterations.length - 1];
    if (it.candidates.length > 1) {
      const rows = it.ranking.map((ci, rank) => {
        const f = candidateFigures(it.candidates[ci]);
        const tr = h(
          'tr',
          { class: ci === sel.candidate ? 'selected' : '' },
          h('td', {}, String(rank + 1)),
          h('td', {}, `candidate ${ci + 1}`),
          h('td', {}, fmt(f.self)),
          h('td', {}, fmt(f.verifier)),
          h('td', {}, fmt(f.solution)),
          h('td', {}, fmt(f.reward, 3)),
        );
        tr.addEventListener('click', () => {
          state.selected = { iteration: it.index, candidate: ci };
          render();
        });
        return tr;
      });
      parts.push(
        h('h2', {}, `Best of ${it.candidates.length}, ranked by ${run.options.rerankBy}`),
        h(
          'table',
          { id: 'ranking' },
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              ...['Rank', 'Candidate', 'Self', 'Verifier', 'Steps', 'R'].map((t) => h('th', {}, t)),
            ),
          ),
          h('tbody', {}, ...rows),
        ),
      );
    }
    const c = it.candidates[sel.candidate] ?? it.candidates[it.chosen];
    if (c) parts.push(...candidateView(run, it, c));
  }
  app.replaceChildren(...parts);
}

rpc.on('start', (m) => {
  // A new run: the previous result goes at once, so nothing stale is read as the new run's.
  state = { run: null, kind: m.kind };
  live = null;
  partial = false;
  labels = [];
  saveState(state);
  render();
});
rpc.on('error', (e) => {
  live = null;
  render();
  const progress = document.getElementById('progress');
  progress?.replaceWith(
    h('p', { class: 'error', id: 'progress' }, `${e.message}${e.hint ? ` — ${e.hint}` : ''}`),
  );
  document.getElementById('cancel')?.remove();
});
rpc.on('run', (m) => {
  state = { run: m.run, file: m.file, kind: m.run.kind, selected: m.partial ? undefined : state.selected };
  partial = m.partial;
  if (!m.partial) live = null;
  saveState(state);
  render();
});
rpc.on('live', (l) => {
  const changed = !live || live.iteration !== l.iteration || live.phase !== l.phase;
  live = l;
  if (changed) return render();
  // Streaming tokens update only the texts and the progress line, not the whole page.
  const progress = document.getElementById('progress');
  if (progress) progress.replaceWith(progressLine(l, state.kind ?? 'prove'));
  // While writing, the stream is the proof itself (shown once, below); later stages stream apart.
  for (const [k, t] of l.phase === 'generate' ? [] : Object.entries(l.text)) {
    const pre = document.querySelector<HTMLElement>(`#live pre[data-sequence="${k}"]`);
    if (pre) pre.textContent = t;
    else return render();
  }
  for (const [k, t] of Object.entries(l.proofs)) {
    const pre = document.querySelector<HTMLElement>(`#live-proof pre[data-candidate="${k}"]`);
    if (pre) pre.textContent = t;
    else return render();
  }
});
rpc.on('labels', (l) => {
  labels = l;
  render();
});
render();
rpc.request('state', null).then(
  (s) => {
    if (s.run) {
      state = { ...state, run: s.run, file: s.file };
      labels = s.labels;
      render();
    }
  },
  () => undefined,
);
