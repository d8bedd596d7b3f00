/**
 * The Prove panel's score cards: each score as its expected value with a small bar per option, so
 * that "0.75" reads as "mostly 1, some 0.5" and a verdict that was parsed from free text (all the
 * mass on one value) is told apart from a constrained choice.
 */
import { h } from '../shared/host';
import type {
  CandidateRecord,
  GenerationMode,
  ProveRun,
  ScoreDistribution,
} from '../../src/shared/protocols/prove';
import { judgmentCard, JUDGMENT_CSS } from './judgment';
import { candidateFigures } from '../../src/shared/proveFigures';

export const SCORES_CSS =
  JUDGMENT_CSS +
  `
.scores { display: grid; grid-template-columns: repeat(auto-fill, minmax(170px, 1fr)); gap: 10px; }
.score { border: 1px solid var(--vscode-panel-border); border-radius: 6px; padding: 8px 12px; }
.score .value { font-size: 1.7em; font-weight: 600; }
.score.warn { border-color: var(--vscode-editorWarning-foreground); }
.dist { display: grid; grid-template-columns: auto 1fr auto; gap: 1px 6px; align-items: center; font-size: 0.85em; margin: 4px 0; font-variant-numeric: tabular-nums; }
.dist .track { height: 8px; background: var(--vscode-editorWidget-background); border-radius: 2px; overflow: hidden; min-width: 50px; }
.dist .fill { height: 100%; background: var(--vscode-charts-blue); }
.dist .fill.chosen { background: var(--vscode-charts-green); }
.badge { display: inline-block; font-size: 0.8em; padding: 0 6px; border-radius: 8px; border: 1px solid var(--vscode-panel-border); margin-left: 4px; }
.badge.constrained { border-color: var(--vscode-charts-green); }
.badge.free { border-color: var(--vscode-charts-orange); }
.warning { color: var(--vscode-editorWarning-foreground); }
.mode { margin: 4px 0; }
.answer.mismatch { border-color: var(--vscode-testing-iconFailed); }
.answer.match { border-color: var(--vscode-testing-iconPassed); }
`;

export const fmt = (x: number | null | undefined, digits = 2) =>
  x === null || x === undefined ? '—' : x.toFixed(digits);

/** One row per option: its value, a bar as long as its probability, the percentage. */
export function distributionView(d: ScoreDistribution | null, id?: string): HTMLElement {
  const view = h('div', { class: 'dist', ...(id ? { id } : {}) });
  if (!d) return view;
  for (const o of d.options) {
    const fill = h('div', { class: `fill${o.option === d.chosen ? ' chosen' : ''}` });
    fill.style.width = `${Math.round(o.probability * 100)}%`;
    view.append(
      h('span', {}, o.option),
      h('div', { class: 'track', title: `P(${o.option}) = ${o.probability.toFixed(3)}` }, fill),
      h('span', { 'data-option': o.option }, `${(o.probability * 100).toFixed(0)}%`),
    );
  }
  return view;
}

/** The mean of several passes' distributions (the k verifier passes of one candidate). */
export function mixture(ds: readonly (ScoreDistribution | null)[]): ScoreDistribution | null {
  const present = ds.filter((d): d is ScoreDistribution => d !== null);
  if (!present.length) return null;
  if (present.length === 1) return present[0];
  const options = present[0].options.map((o, i) => ({
    ...o,
    probability: present.reduce((s, d) => s + (d.options[i]?.probability ?? 0), 0) / present.length,
  }));
  const expected = options.reduce((s, o) => s + o.value * o.probability, 0);
  const chosen = options.reduce((a, b) => (b.probability > a.probability ? b : a)).option;
  return {
    source: present.every((d) => d.source === 'choice') ? 'choice' : 'parsed',
    options,
    expected,
    chosen,
    optionMass: null,
  };
}

function sourceNote(d: ScoreDistribution | null): string {
  if (!d) return 'no score was found';
  if (d.source === 'parsed') return 'read from free text (one value)';
  // Little mass on the options: the model wanted to write something else, so read the bars loosely.
  return d.optionMass !== null && d.optionMass < 0.2
    ? `constrained choice; only ${(d.optionMass * 100).toFixed(0)}% of the model's mass was on the options`
    : 'probabilities of a constrained choice';
}

/** `value`: the candidate's figure (candidateFigures), drawn over the distribution's bars. */
function scoreCard(
  label: string,
  id: string,
  value: number | null,
  d: ScoreDistribution | null,
  note: string,
  warning?: string,
): HTMLElement {
  return h(
    'div',
    { class: `score${warning ? ' warn' : ''}`, id },
    h('div', { class: 'muted' }, label),
    h('div', { class: 'value' }, fmt(value)),
    distributionView(d, `${id}-distribution`),
    h('div', { class: 'muted' }, note),
    warning ? h('div', { class: 'warning' }, warning) : null,
  );
}

/** Self-score, verifier, meta-verifier, steps and reward as cards. */
export function scoreCards(run: ProveRun, c: CandidateRecord): HTMLElement {
  const verifierPasses = c.verifier?.passes ?? [];
  const metaPasses = c.meta?.passes ?? [];
  const metaWithoutReasons = metaPasses.filter((p) => p.withoutReasons).length;
  const verifierWithoutReasons = verifierPasses.filter((p) => p.withoutReasons).length;
  const scorer = c.stepScores?.scorer;
  const f = candidateFigures(c);
  return h(
    'div',
    { class: 'scores' },
    judgmentCard(c),
    scoreCard(
      'Self-score (expected)',
      'self-score',
      f.self,
      c.selfScoreDistribution,
      c.selfScoreDistribution ? sourceNote(c.selfScoreDistribution) : (c.parsed.problems[0] ?? 'none found'),
    ),
    scoreCard(
      'Verifier score (expected)',
      'verifier-score',
      f.verifier,
      mixture(verifierPasses.map((p) => p.distribution)),
      `${verifierPasses.length} pass(es); ${sourceNote(verifierPasses[0]?.distribution ?? null)}`,
      verifierWithoutReasons ? `${verifierWithoutReasons} verdict(s) came without reasons` : undefined,
    ),
    run.options.metaVerify
      ? scoreCard(
          'Meta-verifier: R_meta',
          'meta-score',
          f.meta,
          mixture(metaPasses.map((p) => p.distribution)),
          'are the issues the self-evaluation names real?',
          metaWithoutReasons
            ? `${metaWithoutReasons} verdict(s) came without reasons: the score is unexplained`
            : undefined,
        )
      : null,
    h(
      'div',
      { class: 'score', id: 'solution-score' },
      h('div', { class: 'muted' }, 'Solution score'),
      h('div', { class: 'value' }, fmt(f.solution)),
      h(
        'div',
        { class: 'muted' },
        scorer ? `${run.options.stepAggregate} of step scores (${scorer.kind})` : 'steps not scored',
      ),
    ),
    h(
      'div',
      { class: 'score', id: 'reward' },
      h('div', { class: 'muted' }, 'Reward R'),
      h('div', { class: 'value' }, fmt(f.reward, 3)),
      h('div', { class: 'muted' }, `R_format ${c.rewards.rFormat}; from expected scores`),
    ),
  );
}

/** The final answer against the reference answer, when the problem has one. */
export function answerCard(c: CandidateRecord): HTMLElement | null {
  const check = c.answerCheck;
  if (!check) return null;
  const verdict = check.matches
    ? 'matches the reference answer'
    : check.answer === null
      ? 'the proof boxes no final answer'
      : 'does NOT match the reference answer';
  return h(
    'div',
    { class: `card answer ${check.matches ? 'match' : 'mismatch'}`, id: 'answer-check' },
    h('strong', {}, 'Final answer: '),
    check.answer ?? '(none)',
    h('span', { class: 'muted' }, ` · reference ${check.reference} · `),
    h('span', { class: check.matches ? '' : 'warning' }, verdict),
  );
}

function modeLine(role: string, m: GenerationMode): HTMLElement {
  return m.mode === 'constrained'
    ? h(
        'div',
        { class: 'mode' },
        `${role}: `,
        h('span', { class: 'badge constrained' }, `constrained (${m.planMode})`),
      )
    : h(
        'div',
        { class: 'mode' },
        `${role}: `,
        h('span', { class: 'badge free' }, 'free'),
        h('span', { class: 'muted' }, ` — ${m.fallbackReason ?? ''}`),
      );
}

/** How the run's outputs were produced: constrained plans, or free generation and why. */
export function generationView(run: ProveRun): HTMLElement {
  return h(
    'div',
    { class: 'card', id: 'generation' },
    // A check generates nothing: only the verifier's mode applies.
    run.kind === 'check' ? null : modeLine('Generator', run.generation.generator),
    modeLine('Verifier', run.generation.verifier),
  );
}

export function modeBadge(c: CandidateRecord): HTMLElement {
  return h(
    'span',
    { class: `badge ${c.constrained ? 'constrained' : 'free'}`, id: 'proof-mode' },
    c.constrained ? 'constrained: both sections and the score by construction' : 'free generation, parsed',
  );
}
