/** Messages of the practice-set panel. */
import type { PracticeSet } from '../../core/practice/types';

export type { PracticeQuestion, PracticeSet } from '../../core/practice/types';

export interface PracticeProgress {
  question: number;
  of: number;
  phase: string;
}

export interface PracticeHost {
  requests: {
    state: { params: null; result: { set: PracticeSet | null; file?: string } };
    export: { params: null; result: { dpo: string; rewards: string; pairs: number } };
    cancel: { params: null; result: null };
  };
  events: {
    /** A new set is being generated: the panel drops the set it shows. */
    started: { topic: string | null };
    progress: PracticeProgress;
    set: { set: PracticeSet; file?: string; partial: boolean };
  };
}

export interface PracticeView {
  requests: Record<string, never>;
  events: Record<string, never>;
}
