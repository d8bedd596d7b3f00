/** The saved practice set (`.stepwise/practice/*.json`). Pure types: the panel compiles them too. */
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
  /** Repeated judge scores per answer id, in [0, 1]. */
  scores: Record<string, number[]>;
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
  proposalsWithoutQuestion: number;
  totalMs: number;
}
