/**
 * Upgrades saved run documents of older versions to the current shape before they are validated,
 * so that runs saved by an earlier Stepwise stay readable by the panel, the calibration view, the
 * labelling queue and the trainer's data export. Works on plain JSON; never throws (a document it
 * does not recognise is returned unchanged and the schema then says what is wrong with it).
 */
import { pointMass } from './distribution';
import { MIN_REASON_WORDS, reasonWords, readScore, type ScoreScale } from './score';
import { OPENING_SENTENCE, stripThinking } from './parse';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

const FREE_BEFORE_PLANS = {
  mode: 'free',
  planMode: null,
  fallbackReason: 'saved before constrained generation (run document version 1)',
};

export function upgradeRun(value: unknown): unknown {
  if (!isObject(value) || value.version !== 1) return value;
  // Version 1 had free generation only; its scores were single numbers read from the text.
  const scale: ScoreScale =
    isObject(value.options) && value.options.rubric === 'olympiad' ? 'olympiad' : 'unit';
  const iterations = Array.isArray(value.iterations) ? value.iterations : [];
  return {
    ...value,
    version: 2,
    problem: isObject(value.problem) ? { referenceAnswer: null, ...value.problem } : value.problem,
    options: isObject(value.options) ? { ...value.options, constrained: false } : value.options,
    generation: { generator: FREE_BEFORE_PLANS, verifier: FREE_BEFORE_PLANS },
    iterations: iterations.map((it) =>
      isObject(it) && Array.isArray(it.candidates)
        ? { ...it, candidates: it.candidates.map((c) => upgradeCandidate(c, scale)) }
        : it,
    ),
  };
}

function upgradeCandidate(c: unknown, scale: ScoreScale): unknown {
  if (!isObject(c)) return c;
  const self = isObject(c.parsed) ? c.parsed.selfScore : null;
  return {
    ...c,
    constrained: false,
    selfScoreDistribution: typeof self === 'number' ? pointMass(self, 'unit') : null,
    answerCheck: null,
    verifier: upgradeJudge(c.verifier, scale),
    meta: upgradeJudge(c.meta, 'unit'),
  };
}

function upgradeJudge(j: unknown, scale: ScoreScale): unknown {
  if (!isObject(j) || !Array.isArray(j.passes)) return j;
  return {
    ...j,
    passes: j.passes.map((p) => {
      if (!isObject(p)) return p;
      const raw = typeof p.raw === 'string' ? p.raw : '';
      const reasons = readScore(stripThinking(raw).text, scale).reasons;
      return {
        ...p,
        distribution: typeof p.rawScore === 'number' ? pointMass(p.rawScore, scale) : null,
        constrained: false,
        withoutReasons: reasonWords(reasons, OPENING_SENTENCE) < MIN_REASON_WORDS,
      };
    }),
  };
}
