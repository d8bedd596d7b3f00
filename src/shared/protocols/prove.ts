/** Messages of the Prove panel and the Calibration panel. */
import type { ProveRun } from '../../core/prove/runSchema';
import type { CalibrationReport } from '../../core/prove/calibration';

export interface ProveLive {
  iteration: number;
  phase: string;
  candidate: number | null;
  /** Streaming text of the current phase, per candidate. */
  text: Record<number, string>;
}

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
    run: { run: ProveRun; file?: string; partial: boolean };
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
    calibration: { params: null; result: { report: CalibrationReport; runs: number; skipped: string[] } };
  };
  events: Record<string, never>;
}
