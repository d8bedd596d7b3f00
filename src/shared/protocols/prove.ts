/** Messages of the Prove panel and the Calibration panel. */
import type { ProveRun } from '../../core/prove/runSchema';
import type { CalibrationReport } from '../../core/prove/calibration';

// The run's records as the panels draw them: webviews take core types only through their protocol.
export type {
  CandidateRecord,
  GenerationMode,
  IterationRecord,
  ProveRun,
  ScoreDistribution,
} from '../../core/prove/runSchema';
export type { CalibrationReport, ScoreCalibration } from '../../core/prove/calibration';
import type { StageProgress } from '../../core/prove/progress';
export type { StageProgress };

export interface ProveLive {
  iteration: number;
  phase: string;
  candidate: number | null;
  /** Streaming text of the current phase, per candidate. */
  text: Record<number, string>;
  /**
   * The proofs of the current round as far as they are written (the person's own proof for a
   * check), per candidate: kept through step scoring and judging, so what was streamed stays shown.
   */
  proofs: Record<number, string>;
  /** Progress of the current stage, from measured speed. */
  progress: StageProgress;
}

/** What a run is: the model's own proofs, or a check of the person's proof. */
export type RunKind = 'prove' | 'check';

export interface StepLabelView {
  stepIndex: number;
  rating: -1 | 0 | 1;
  stale: boolean;
}

export interface ProveHost {
  requests: {
    state: { params: null; result: { run: ProveRun | null; file?: string; labels: StepLabelView[] } };
    cancel: { params: null; result: null };
    label: {
      params: { iteration: number; candidate: number; stepIndex: number; rating: -1 | 0 | 1 };
      result: { saved: boolean; labels: StepLabelView[] };
    };
  };
  events: {
    /** A new run began: the panel drops the previous result at once. */
    start: { kind: RunKind; problem: string };
    run: { run: ProveRun; file?: string; partial: boolean };
    /** The run could not start (the model did not load): the panel says so instead of "Starting…". */
    error: { message: string; hint?: string };
    live: ProveLive;
    labels: StepLabelView[];
  };
}

export interface ProveView {
  requests: Record<string, never>;
  events: Record<string, never>;
}

export interface CalibrationHost {
  requests: {
    /** The report over every saved run, or over one generator's (`model`, from `report.models`). */
    calibration: {
      params: { model: string | null } | null;
      result: { report: CalibrationReport; runs: number; skipped: string[] };
    };
  };
  events: Record<string, never>;
}
