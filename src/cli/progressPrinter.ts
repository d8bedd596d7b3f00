import { describeProgress, type InstallProgress } from '../core/model/ladder/progress';

/**
 * Shows install progress on stderr: one line rewritten in place on a terminal; in a log (start.sh
 * piped, CI) a new line at each stage, each 10% and at least every 15 s, so the log stays short.
 */
export class ProgressPrinter {
  private lastWrite = 0;
  private lastStage = '';
  private lastTenth = -1;
  private open = false;

  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly now: () => number = () => Date.now(),
  ) {}

  update(p: InstallProgress): void {
    const line = describeProgress(p);
    const t = this.now();
    if (this.out.isTTY) {
      if (t - this.lastWrite < 100 && p.stage === this.lastStage && p.fraction !== 1) return;
      const width = Math.max(20, (this.out.columns ?? 100) - 1);
      this.out.write(`\r${line.slice(0, width).padEnd(width)}`);
      this.open = true;
    } else {
      const tenth = p.fraction === undefined ? -1 : Math.floor(p.fraction * 10);
      const news = p.stage !== this.lastStage || tenth > this.lastTenth || t - this.lastWrite >= 15_000;
      if (!news) return;
      this.out.write(line + '\n');
      this.lastTenth = p.stage !== this.lastStage ? tenth : Math.max(tenth, this.lastTenth);
    }
    this.lastStage = p.stage;
    this.lastWrite = t;
  }

  /** Ends the in-place line so that what follows starts on its own line. */
  done(): void {
    if (this.open) this.out.write('\n');
    this.open = false;
  }
}
