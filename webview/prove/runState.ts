import { h } from '../shared/host';
import { renderMathText } from '../shared/math';
import type { CandidateRecord, ProveLive, ProveRun, RunKind } from '../../src/shared/protocols/prove';
import { answerCard, fmt } from './scores';
import { judgmentCard } from './judgment';
import { candidateFigures } from '../../src/shared/proveFigures';

const STAGES: Record<string, string> = {
  generate: 'writing the proof',
  'step-score': 'scoring the steps',
  verify: 'grading the proof (verifier)',
  'meta-verify': 'checking the grade (meta-verifier)',
  rank: 'ranking the candidates',
};

/** Stage, tokens, speed and what is left, in one line that streaming updates replace in place. */
export function progressLine(live: ProveLive, kind: RunKind): HTMLElement {
  const p = live.progress;
  const parts = [
    `${kind === 'prove' ? `Round ${live.iteration + 1}: ` : ''}${STAGES[live.phase] ?? live.phase}…`,
  ];
  if (p.budget !== null) parts.push(`${p.tokens} tokens`);
  if (p.tokensPerSecond !== null) parts.push(`${p.tokensPerSecond.toFixed(1)} tokens/s`);
  parts.push(
    p.secondsLeftAtMost !== null
      ? `at most ${Math.ceil(p.secondsLeftAtMost)} s left in this stage`
      : `${Math.round(p.elapsedSeconds)} s in this stage`,
  );
  return h('p', { class: 'loading', id: 'progress' }, parts.join(' · '));
}

/**
 * What the run has written so far: the proofs stay shown through step scoring and judging (the
 * person's own proof from the start of a check), with the current stage's stream below them.
 */
export function liveView(live: ProveLive, kind: RunKind): HTMLElement {
  const proofs = Object.entries(live.proofs);
  const streams = live.phase === 'generate' ? [] : Object.entries(live.text);
  return h(
    'div',
    { class: 'live', id: 'live' },
    proofs.length
      ? h(
          'div',
          { id: 'live-proof' },
          h('h2', {}, kind === 'check' ? 'Your proof' : 'Proof so far'),
          ...proofs.map(([k, t]) => h('pre', { 'data-candidate': k }, t)),
        )
      : null,
    streams.length
      ? h(
          'div',
          {},
          h('h2', {}, STAGES[live.phase] ?? live.phase),
          ...streams.map(([k, t]) => h('pre', { 'data-sequence': k }, t)),
        )
      : null,
  );
}

/** How the run ended, when that changes how to read it (cancelled or failed). */
export function runBanner(run: ProveRun): HTMLElement | null {
  if (run.status !== 'cancelled') return null;
  return h(
    'p',
    { class: 'card cancelled', id: 'cancelled' },
    h('strong', {}, 'Cancelled. '),
    'What the run finished before it was cancelled is shown below; what it had not reached has no score. ' +
      'The run is saved, and left out of calibration and training data.',
  );
}

/** The verifier's evaluation without its closing verdict sentence: the issues it names. */
function issuesOf(raw: string): string {
  return raw.replace(/Based on my evaluation[\s\S]*$/i, '').trim();
}

/**
 * The calibrator learnt from the model's own answers to problems with a final answer, few of them
 * right; a person's proof is another population, so the figure comes with where it was learnt.
 */
function checkNote(c: CandidateRecord): string | undefined {
  return c.judgment
    ? "Learnt from the model's own answers to problems with a final answer, few of them right: for a proof you wrote, read P beside the verifier's issues and the step scores."
    : undefined;
}

/** A checked proof: the grade, the check of the grade, the steps to label, the issues. */
export function checkView(
  run: ProveRun,
  c: CandidateRecord,
  steps: HTMLElement,
  legend: HTMLElement,
): HTMLElement[] {
  const card = (id: string, title: string, value: string, note: string) =>
    h(
      'div',
      { class: 'score', id },
      h('div', { class: 'muted' }, title),
      h('div', { class: 'value' }, value),
      h('div', { class: 'muted' }, note),
    );
  const analysis = c.verifier?.passes[0]?.raw ?? '';
  const f = candidateFigures(c);
  return [
    answerCard(c) ?? h('span'),
    h(
      'div',
      { class: 'scores' },
      judgmentCard(c, false, checkNote(c)),
      card(
        'verifier-score',
        'Verifier score (expected)',
        fmt(f.verifier),
        '0: wrong · 0.5: minor gaps · 1: complete and rigorous',
      ),
      card('meta-score', 'Meta-verifier', fmt(f.meta), 'are the issues below real? (1: yes)'),
      card(
        'solution-score',
        'Solution score',
        fmt(f.solution),
        c.stepScores
          ? `${run.options.stepAggregate} of step scores (${c.stepScores.scorer.kind})`
          : 'steps not scored',
      ),
    ),
    h('h2', {}, 'Your proof, step by step'),
    h(
      'p',
      { class: 'muted' },
      'Label each step +1 (correct), 0 (neutral) or −1 (wrong); the labels are saved with your document.',
    ),
    legend,
    steps,
    h('h2', {}, 'Issues the verifier found'),
    h(
      'div',
      { class: 'card selftext', id: 'issues' },
      renderMathText(issuesOf(analysis) || '(the verifier gave no evaluation)'),
    ),
  ];
}
