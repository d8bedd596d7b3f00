import * as vscode from 'vscode';
import { performance } from 'node:perf_hooks';
import type { StepwiseContext } from '../context';
import type { SingletonPanel } from '../panels/panelHost';
import type { ProveEvent } from '../../core/prove/events';
import { StageProgressMeter } from '../../core/prove/progress';
import type { ProveRun } from '../../core/prove/runSchema';
import { saveRun } from '../../core/prove/runStore';
import { runsDir } from '../../core/runs/folder';
import type { ProveHost, ProveLive, ProveView, RunKind, StepLabelView } from '../../shared/protocols/prove';
import { showStepwiseError } from '../errorActions';

/** Labels of the shown run's steps; the labelling feature plugs in here. */
export interface PanelLabelling {
  labelsFor(run: ProveRun, iteration: number, candidate: number): Promise<StepLabelView[]>;
  label(
    run: ProveRun,
    iteration: number,
    candidate: number,
    stepIndex: number,
    rating: -1 | 0 | 1,
  ): Promise<StepLabelView[]>;
}

export interface PanelRun {
  kind: RunKind;
  problem: string;
  /** The document the problem was read from, when there is one. */
  file?: string | null;
  /** Title of the cancellable progress notification. */
  title: string;
  /** Most tokens per sequence of the text-writing stages, for the estimate of what is left. */
  budgets: { generate: number; judge: number };
  /** A proof shown from the start (the person's own, for a check). */
  proof?: string;
  start(signal: AbortSignal, onEvent: (e: ProveEvent) => void): Promise<ProveRun>;
}

/** The chosen candidate of a run (the last round's when the run ended before choosing). */
export function chosenOf(run: ProveRun): { iteration: number; candidate: number } {
  return (
    run.final ?? {
      iteration: run.iterations.length - 1,
      candidate: run.iterations[run.iterations.length - 1]?.chosen ?? 0,
    }
  );
}

/**
 * Runs prove or check runs in the one Prove panel, one at a time: a new run cancels the one in
 * flight and clears its result at once; while it runs, the panel and a cancellable notification show
 * the stage, the tokens written and an estimate from the measured speed; the proof streamed so far
 * stays shown through every later stage. Every run is saved, a cancelled one with status
 * 'cancelled' (shown as such, and left out of calibration and training data).
 */
export class ProveRunner {
  shown: { run: ProveRun | null; file?: string } = { run: null };
  /**
   * The problem of the run the panel shows (running or finished) and its document: what a command
   * run again from the panel, with no text editor active, works on.
   */
  panelProblem: { problem: string; file: string | null } | undefined;
  private running: AbortController | undefined;

  constructor(
    private readonly ctx: StepwiseContext,
    private readonly panel: SingletonPanel<ProveHost, ProveView>,
    private readonly labelling: () => PanelLabelling | undefined,
  ) {}

  cancel(): void {
    this.running?.abort();
  }

  async run(spec: PanelRun): Promise<{ run: ProveRun; file?: string }> {
    this.running?.abort();
    const abort = new AbortController();
    this.running = abort;
    this.shown = { run: null };
    this.panelProblem = { problem: spec.problem, file: spec.file ?? null };
    const handle = this.panel.show();
    // The one panel serves both kinds of run; its tab says which one it shows.
    handle.panel.title =
      spec.kind === 'check' ? 'Stepwise: Check My Proof' : 'Stepwise: Prove and Self-Verify';
    await handle.ready;
    handle.rpc.emit('start', { kind: spec.kind, problem: spec.problem });
    const meter = new StageProgressMeter(spec.budgets, spec.kind === 'check' ? 'step-score' : 'generate');
    // A check has one pass over the person's proof: no rounds to number.
    const round = (iteration: number) => (spec.kind === 'check' ? undefined : iteration);
    const live: ProveLive = {
      iteration: 0,
      phase: spec.kind === 'check' ? 'step-score' : 'generate',
      candidate: null,
      text: {},
      proofs: spec.proof ? { 0: spec.proof } : {},
      progress: meter.snapshot(performance.now()),
    };
    let flush: NodeJS.Timeout | undefined;
    // The panel and the notification are refreshed together from one reading of the meter, so
    // they never show two different token counts for the same moment.
    let notify: ((message: string) => void) | undefined;
    const send = () => {
      const now = performance.now();
      live.progress = meter.snapshot(now);
      handle.rpc.emit('live', live);
      notify?.(meter.describe(now, round(live.iteration)));
    };
    // Tokens arrive faster than a webview needs to repaint; send at most ten updates a second.
    const scheduleLive = () => {
      flush ??= setTimeout(() => {
        flush = undefined;
        send();
      }, 100);
    };
    const onEvent = (e: ProveEvent) => {
      meter.observe(e, performance.now());
      if (e.type === 'phase') {
        // A new round writes new proofs; later stages of a round keep the round's proofs.
        if (e.phase === 'generate') live.proofs = {};
        Object.assign(live, { iteration: e.iteration, phase: e.phase, candidate: e.candidate, text: {} });
        send();
      } else if (e.type === 'token') {
        live.text[e.sequence] = (live.text[e.sequence] ?? '') + e.text;
        if (e.phase === 'generate') live.proofs[e.sequence] = live.text[e.sequence];
        scheduleLive();
      } else if (e.type === 'run-start') {
        send();
      }
    };
    const started = vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: spec.title, cancellable: true },
      (progress, token) => {
        token.onCancellationRequested(() => abort.abort());
        notify = (message) => progress.report({ message });
        // Between tokens (a long prompt being read) the elapsed time and estimate still move.
        const tick = setInterval(send, 1000);
        // onEvent updates the meter before sending, so a new stage is named, not the last one.
        return spec.start(abort.signal, onEvent).finally(() => {
          clearInterval(tick);
          notify = undefined;
        });
      },
    );
    let run: ProveRun;
    try {
      run = await started;
    } catch (err) {
      // No run document exists (the model did not load): the panel must not wait for one.
      const e = err as Error & { hint?: string };
      handle.rpc.emit('error', { message: e.message, ...(e.hint ? { hint: e.hint } : {}) });
      throw err;
    } finally {
      if (flush) clearTimeout(flush);
    }
    if (this.running === abort) this.running = undefined;
    const savedAs = await this.save(run);
    // A run replaced by a newer one is saved but no longer shown: the panel belongs to the new one.
    if (abort.signal.aborted && this.running) return { run, file: savedAs };
    this.shown = { run, file: savedAs };
    handle.rpc.emit('run', { run, file: savedAs, partial: false });
    const l = this.labelling();
    if (l) {
      const sel = chosenOf(run);
      handle.rpc.emit('labels', await l.labelsFor(run, sel.iteration, sel.candidate));
    }
    if (run.status === 'failed')
      showStepwiseError(
        `Stepwise: the run failed: ${run.error?.message ?? 'unknown error'}${run.error?.hint ? ` — ${run.error.hint}` : ''}`,
        run.error?.code,
        () => this.ctx.log.show(),
      );
    else if (run.status === 'cancelled')
      vscode.window.setStatusBarMessage(
        'Stepwise: run cancelled; what it finished is kept in the panel',
        5000,
      );
    return { run, file: savedAs };
  }

  private async save(run: ProveRun): Promise<string | undefined> {
    const root = this.ctx.workspaceRoot();
    if (!root) return undefined;
    try {
      return vscode.workspace.asRelativePath(await saveRun(run, runsDir(root.fsPath)));
    } catch (err) {
      this.ctx.log.error(`Could not save the run: ${String(err)}`);
      void vscode.window.showWarningMessage(
        `Stepwise could not save the run under .stepwise/runs: ${(err as Error).message}`,
      );
      return undefined;
    }
  }
}
