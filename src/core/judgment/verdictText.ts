/**
 * What the CLI and the Prove panel say of a candidate's judgment: "likely wrong (P = 0.12)", the
 * evidence in words, and one-line explanations of the reward symbols shown behind the details
 * toggle. The one source of these words: the Prove panel bundles this module too, so it imports
 * types only (eslint.config.mjs enforces it and lets webviews import it).
 */
import type { Judgment } from './judgmentSchema';
import type { FeatureName } from './featureNames';
import type { StepScorer } from '../model/stepScorer';

export const SIGNAL_LABELS: Record<FeatureName, string> = {
  selfScore: 'self score',
  verifierScore: 'verifier score',
  metaScore: 'meta-verifier score',
  agreement: 'answer agreement',
  weakestStep: 'weakest step',
  learnedScore: 'learned scorer',
  truncated: 'cut at token limit',
  boxed: 'boxed answer',
};

export const SIGNAL_EXPLANATIONS: Record<FeatureName, string> = {
  selfScore: "the model's own expected score of its proof (self-evaluation)",
  verifierScore: 'expected verifier score of the proof (R_Y, the mean of its k passes)',
  metaScore: 'meta-verifier: are the issues the self-evaluation names real? (R_meta)',
  agreement: "share of this problem's candidates whose final answer is equivalent to this one's",
  weakestStep: 'the lowest step score of the proof',
  learnedScore: "a head fitted on labelled proofs, reading how sure the model was of this proof's own tokens",
  truncated: 'the output was cut at its token limit (1) or ended by itself (0)',
  boxed: 'the Solution ends in a boxed final answer (1) or boxes none (0)',
};

/** The reward symbols of the design, for the details toggle. */
export const SYMBOL_EXPLANATIONS: [symbol: string, meaning: string][] = [
  ['R_format', '1 when the output has both sections and a boxed self-score in {0, 0.5, 1}'],
  ['R_Y', "the verifier's expected score of the proof"],
  ['R_score', '1 − |E[self-score] − R_Y|: how far the self-score is from the verifier'],
  ['R_meta', "the meta-verifier's expected score: are the issues the self-evaluation claims real?"],
  ['R_Z', 'R_score · R_meta: reward for an honest self-evaluation'],
  ['R', 'R_format · (α·R_Y + β·R_Z): the training reward'],
  ['P(correct)', 'calibrated probability that the final answer is right, from the signals below'],
];

/** "likely wrong (P = 0.12)", "uncertain (P = 0.45)", "likely right (P = 0.81)". */
export function judgmentText(j: Judgment | null | undefined): string {
  if (!j) return 'no calibrated judgment';
  return `${j.verdict.replace('-', ' ')} (P = ${j.pCorrect.toFixed(2)})`;
}

/**
 * Which calibrator gave P and what it was fitted on. Under other models than the calibrator's, the
 * same self and verifier scores mean other odds: P still orders candidates, but its scale is not
 * this model's, and the line says so rather than let the number pass for a calibrated one.
 */
export function calibratorText(j: Judgment): string {
  const c = j.calibrator;
  if (c.otherModels && c.fittedOn)
    return (
      `calibrator ${c.source} was fitted on ${modelsText(c.fittedOn)}, not on this run's models: ` +
      'P ranks the candidates, but it is not calibrated for these models'
    );
  const what = c.fittedOn ? `${modelsText(c.fittedOn)}'s proofs of labelled problems` : 'labelled problems';
  return `calibrator ${c.source}: fitted on ${what}, measured on others it never saw`;
}

function modelsText(on: { generator: string; verifier: string }): string {
  return on.generator === on.verifier ? on.generator : `${on.generator} (verifier ${on.verifier})`;
}

export interface EvidenceRow {
  label: string;
  value: string;
  /** "+0.41" or "−0.41": how far the signal moved the log-odds. */
  contribution: string;
  explanation: string;
}

/** The evidence, strongest first. */
export function evidenceRows(j: Judgment): EvidenceRow[] {
  return [...j.evidence]
    .sort((a, b) => Math.abs(b.contribution) - Math.abs(a.contribution))
    .map((e) => ({
      label: SIGNAL_LABELS[e.feature],
      value: e.value.toFixed(2),
      contribution: `${e.contribution >= 0 ? '+' : '−'}${Math.abs(e.contribution).toFixed(2)}`,
      explanation: SIGNAL_EXPLANATIONS[e.feature],
    }));
}

/** One line per signal: "verifier score 0.58 (−0.41 log-odds): expected verifier score …". */
export function evidenceLines(j: Judgment): string[] {
  return evidenceRows(j).map((r) => `${r.label} ${r.value} (${r.contribution} log-odds): ${r.explanation}`);
}

/**
 * One plain line saying what produced a candidate's step scores, so that a person reading the
 * panel knows whether they come from a learned head (and how it measured), a trained PRM, or the
 * verifier asked about each step.
 */
export function stepScorerText(scorer: StepScorer['info'] | null | undefined): string {
  if (!scorer) return 'steps not scored';
  if (scorer.kind === 'step-head') return `step scores: ${scorer.name}`;
  if (scorer.kind === 'prm') return `step scores: process reward model ${scorer.name}`;
  return `step scores: the verifier (${scorer.name}) asked about each step`;
}

export interface StepMarkText {
  /** Written at the step's end: "PRM 0.83", "step head 0.21 · likely wrong". */
  label: string;
  /** What scored it and what the score means. */
  hover: string;
  /** Below the scorer's own threshold: the scorer calls this step wrong. */
  flagged: boolean;
}

/**
 * "Score Steps": what a step's mark says. A learned step head carries the threshold it was fitted
 * with, so its marks can say which steps it calls wrong; a PRM or the verifier carry none, and
 * their score is shown as it is.
 */
export function stepMarkText(
  scorer: StepScorer['info'],
  stepIndex: number,
  score: number,
  threshold?: number,
): StepMarkText {
  const flagged = threshold !== undefined && score < threshold;
  const p = score.toFixed(2);
  if (scorer.kind === 'step-head')
    return {
      label: `step head ${p}${flagged ? ' · likely wrong' : ''}`,
      hover:
        `The ${scorer.name}: P(step ${stepIndex + 1} is not wrong) = ${score.toFixed(3)}` +
        (threshold === undefined
          ? '.'
          : flagged
            ? `, below its threshold ${threshold.toFixed(2)}: likely wrong.`
            : `, not below its threshold ${threshold.toFixed(2)}.`),
      flagged,
    };
  if (scorer.kind === 'prm')
    return {
      label: `PRM ${p}`,
      hover: `Process reward model ${scorer.name}: P(step ${stepIndex + 1} is correct) = ${score.toFixed(3)}`,
      flagged,
    };
  return {
    label: `verifier ${p}`,
    hover: `The verifier (${scorer.name}) asked about step ${stepIndex + 1}: P(correct) = ${score.toFixed(3)}`,
    flagged,
  };
}
