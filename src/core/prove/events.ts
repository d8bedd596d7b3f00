import type { CandidateRecord, IterationRecord, ProveOptions, ProveRun } from './runSchema';

/** What the prove flow is doing; a panel shows it live. */
export type ProvePhase = 'generate' | 'verify' | 'meta-verify' | 'step-score' | 'rank';

/** Phases whose model output streams token by token. */
export type StreamingPhase = 'generate' | 'verify' | 'meta-verify';

/**
 * Progress of one run, in order: `run-start`; per round `phase` changes, `token`s, one `candidate`
 * per evaluated candidate and one `iteration`; finally `done` with the whole run document (also
 * when the run was cancelled or failed, so that nothing shown is lost).
 */
export type ProveEvent =
  | { type: 'run-start'; runId: string; problem: string; options: ProveOptions }
  | { type: 'phase'; iteration: number; phase: ProvePhase; candidate: number | null }
  | {
      type: 'token';
      iteration: number;
      phase: StreamingPhase;
      /** The candidate being generated or judged. */
      candidate: number;
      /** Which of the batched sequences: the candidate itself when generating, the pass when judging. */
      sequence: number;
      text: string;
    }
  | { type: 'candidate'; iteration: number; candidate: CandidateRecord }
  | { type: 'iteration'; iteration: IterationRecord }
  | { type: 'done'; run: ProveRun };

export type ProveEventListener = (event: ProveEvent) => void;
