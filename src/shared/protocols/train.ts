/** Messages of the training panel. */
import type { TrainerEvent } from '../../core/trainer/events';

export interface TrainingState {
  job: string;
  runDir: string;
  events: TrainerEvent[];
  /** 'running' until the trainer exits, then how it ended. */
  status: 'running' | 'done' | 'error' | 'cancelled' | 'crashed';
  message?: string;
}

export interface TrainHost {
  requests: {
    state: { params: null; result: TrainingState | null };
    cancel: { params: null; result: null };
  };
  events: {
    started: { job: string; runDir: string };
    event: TrainerEvent;
    finished: { status: TrainingState['status']; message: string };
  };
}

export interface TrainView {
  requests: Record<string, never>;
  events: Record<string, never>;
}
