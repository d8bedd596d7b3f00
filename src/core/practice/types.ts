/** The saved practice set (`.stepwise/practice/*.json`). Pure types: the panel compiles them too. */
import type { ScoreJudgment } from './judging';
import type { PairJudgment, Reliability, ReliabilityWeights, RegimeStrength } from './metrics';

export interface PracticeAnswer {
  id: string;
  regime: string;
  strength: RegimeStrength;
  text: string;
}

export interface PracticeQuestion {
  id: string;
  question: string;
  generatorPrompt: string;
  answers: PracticeAnswer[];
  /** Repeated judge scores per answer id, in [0, 1]: the expected values of the readable judgments. */
  scores: Record<string, number[]>;
  /** Every judgment per answer id, with its distribution over 0–10 where it was constrained. */
  scoreJudgments?: Record<string, ScoreJudgment[]>;
  /** Score judgments that could not be read (free generation only; constrained ones always can). */
  judgeFailures: number;
  pairJudgments: PairJudgment[];
  reliability: Reliability;
  rG: number;
  kept: boolean;
  reasons: string[];
}

export interface PracticeSet {
  version: 1;
  createdAt: string;
  model: string;
  options: {
    questions: number;
    topic?: string;
    judgePasses: number;
    pairPasses: number;
    bestOfN: number;
    weights: ReliabilityWeights;
    thresholds: ReliabilityWeights;
  };
  questions: PracticeQuestion[];
  /** How the judge's verdicts were generated; absent in sets saved before constrained judging. */
  judging?: { mode: 'constrained' | 'free'; planMode: string | null; fallbackReason: string | null };
  proposalsWithoutQuestion: number;
  totalMs: number;
}
