import type { ProveEvent } from './events';

/** How far the current stage of a run is, and an estimate of what is left from the speed so far. */
export interface StageProgress {
  /** Tokens written in this stage (all sequences together). */
  tokens: number;
  /** The stage's budget in tokens per sequence; null for stages that write no tokens (step scoring). */
  budget: number | null;
  /** Tokens per second, measured over this stage; null until two tokens have been seen. */
  tokensPerSecond: number | null;
  /**
   * Seconds left at most: the longest sequence's remaining budget at the measured speed. An upper
   * bound, since a model may stop before its budget; null without a budget or a speed.
   */
  secondsLeftAtMost: number | null;
  elapsedSeconds: number;
}

const STAGE_NAMES: Record<string, string> = {
  generate: 'writing the proof',
  'step-score': 'scoring the steps',
  verify: 'grading the proof (verifier)',
  'meta-verify': 'checking the grade (meta-verifier)',
  rank: 'ranking',
};

/** The stage as a person reads it ("grading the proof (verifier)"). */
export function stageName(phase: string): string {
  return STAGE_NAMES[phase] ?? phase;
}

/**
 * Measures one stage at a time from the run's events. Times are given by the caller, so the same
 * meter serves the editor's progress notification and the panel, and tests need no clock.
 */
export class StageProgressMeter {
  private phase = '';
  private started = 0;
  private firstTokenAt: number | null = null;
  private tokens = 0;
  private perSequence = new Map<number, number>();
  private budget: number | null = null;

  /**
   * `budgets`: most tokens per sequence of the stages that write text. `firstStage`: the stage a
   * run starts in ('step-score' for a check, which writes no proof).
   */
  constructor(
    private readonly budgets: { generate: number; judge: number },
    private readonly firstStage = 'generate',
  ) {}

  observe(event: ProveEvent, now: number): void {
    if (event.type === 'phase' || event.type === 'run-start') {
      this.phase = event.type === 'phase' ? event.phase : this.firstStage;
      this.started = now;
      this.firstTokenAt = null;
      this.tokens = 0;
      this.perSequence.clear();
      this.budget =
        this.phase === 'generate'
          ? this.budgets.generate
          : this.phase === 'verify' || this.phase === 'meta-verify'
            ? this.budgets.judge
            : null;
    } else if (event.type === 'token') {
      this.firstTokenAt ??= now;
      this.tokens++;
      this.perSequence.set(event.sequence, (this.perSequence.get(event.sequence) ?? 0) + 1);
    }
  }

  snapshot(now: number): StageProgress {
    const seconds = this.firstTokenAt === null ? 0 : (now - this.firstTokenAt) / 1000;
    // Sequences of a batch advance together: the speed that matters is the longest one's.
    const longest = Math.max(0, ...this.perSequence.values());
    const tokensPerSecond = longest >= 2 && seconds > 0 ? (longest - 1) / seconds : null;
    const secondsLeftAtMost =
      this.budget !== null && tokensPerSecond !== null && tokensPerSecond > 0
        ? Math.max(0, this.budget - longest) / tokensPerSecond
        : null;
    return {
      tokens: this.tokens,
      budget: this.budget,
      tokensPerSecond,
      secondsLeftAtMost,
      elapsedSeconds: (now - this.started) / 1000,
    };
  }

  /** One line for a progress notification: stage, tokens, speed and the estimate. */
  describe(now: number, round?: number): string {
    const p = this.snapshot(now);
    const parts = [`${round !== undefined ? `round ${round + 1}: ` : ''}${stageName(this.phase)}`];
    if (p.budget !== null) parts.push(`${p.tokens} tokens`);
    if (p.tokensPerSecond !== null) parts.push(`${p.tokensPerSecond.toFixed(1)} tok/s`);
    if (p.secondsLeftAtMost !== null) parts.push(`at most ${Math.ceil(p.secondsLeftAtMost)} s left`);
    else parts.push(`${Math.round(p.elapsedSeconds)} s`);
    return parts.join(' · ');
  }
}
