import * as vscode from 'vscode';
import * as path from 'node:path';
import type { StepwiseContext } from '../context';
import { singletonPanel } from '../panels/panelHost';
import { readSettings } from '../settings';
import { PRACTICE_MAX_TOKENS, type PracticeSet } from '../../core/practice/loop';
import { runPracticeRounds } from '../../core/practice/rounds';
import { withWeakSolver } from '../../core/practice/weakSolver';
import { createModelBackend } from '../../core/model/factory';
import { saveJsonAtomically } from '../../core/files';
import { exportPracticeSet } from '../../core/practice/export';
import type { PracticeHost, PracticeView } from '../../shared/protocols/practice';

const VIEW_TYPE = 'stepwise.practice';

export function registerPractice(ctx: StepwiseContext): void {
  let current: { set: PracticeSet | null; file?: string } = { set: null };
  let running: AbortController | undefined;

  const exportCurrent = () => {
    if (!current.set || !current.file) throw new Error('Generate a practice set first.');
    return exportPracticeSet(current.set, current.file.replace(/\.json$/, ''));
  };

  const panel = singletonPanel<PracticeHost, PracticeView>(ctx, {
    viewType: VIEW_TYPE,
    bundle: 'practice',
    title: 'Stepwise: Practice Set',
    handlers: () => ({
      state: () => current,
      export: async () => {
        const out = exportCurrent();
        void vscode.window.showInformationMessage(
          `Stepwise: exported ${out.pairs} DPO pairs to ${vscode.workspace.asRelativePath(out.dpo)}.`,
        );
        return out;
      },
      cancel: () => {
        running?.abort();
        return null;
      },
    }),
  });

  ctx.command('stepwise.practice.generate', async (opts?: unknown) => {
    const s = readSettings();
    const given = (opts ?? {}) as { topic?: string; questions?: number };
    const topic =
      given.topic ??
      (await vscode.window.showInputBox({
        title: 'Stepwise: Generate Practice Set',
        prompt: 'Topic of the problems (leave empty for any topic)',
        placeHolder: 'e.g. modular arithmetic',
      }));
    if (topic === undefined) return undefined;
    const root = ctx.workspaceRoot();
    const handle = panel.show();
    await handle.ready;
    running?.abort();
    const abort = new AbortController();
    running = abort;
    // The panel must not keep showing the previous set as if it were this one's result.
    current = { set: null };
    handle.rpc.emit('started', { topic: topic || null });
    const rounds = s.practice.rounds;
    let round = 1;
    const saveRound = async (round: number, set: PracticeSet) => {
      const file = root
        ? path.join(root.fsPath, '.stepwise', 'practice', `${set.createdAt.replace(/[:.]/g, '-')}.json`)
        : undefined;
      if (file) await saveJsonAtomically(file, set);
      current = { set, file };
      // Every round is saved, exported and shown as it ends: a later round's failure loses nothing.
      handle.rpc.emit('set', {
        set,
        file: file && vscode.workspace.asRelativePath(file),
        partial: round < rounds,
      });
      if (file) exportCurrent();
    };
    const { variant, device } = s.model.onnx;
    const sets = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: 'Stepwise: generating a practice set',
        cancellable: true,
      },
      (progress, token) => {
        token.onCancellationRequested(() => abort.abort());
        return withWeakSolver(
          s.practice.weakModelPath,
          (modelDir) => createModelBackend({ backend: 'onnx', modelDir, variant, device }),
          (weak) =>
            ctx.model.use('generating practice set', (model) =>
              runPracticeRounds({
                generator: model,
                weakSolver: weak,
                rounds,
                questions: given.questions ?? s.practice.questions,
                topic: topic || undefined,
                judgePasses: s.practice.judgePasses,
                pairPasses: 2,
                bestOfN: 3,
                // stepwise.model.maxOutputTokens caps every generation, as it does for Prove.
                maxTokens: {
                  question: Math.min(s.model.maxOutputTokens, PRACTICE_MAX_TOKENS.question),
                  answer: Math.min(s.model.maxOutputTokens, PRACTICE_MAX_TOKENS.answer),
                  judge: Math.min(s.model.maxOutputTokens, PRACTICE_MAX_TOKENS.judge),
                },
                weights: s.practice.weights,
                thresholds: s.practice.thresholds,
                signal: abort.signal,
                onEvent: (e) => {
                  if (e.type === 'phase') {
                    const where = rounds > 1 ? `round ${round} of ${rounds}, ` : '';
                    progress.report({ message: `${where}question ${e.question} of ${e.of}: ${e.phase}` });
                    handle.rpc.emit('progress', { question: e.question, of: e.of, phase: e.phase });
                  }
                },
                onRound: async (r, set) => {
                  await saveRound(r, set);
                  round = r + 1;
                },
              }),
            ),
          'stepwise.practice.weakModelPath:',
        );
      },
    );
    const set = sets[sets.length - 1];
    const file = current.file;
    return { set, file, rounds: sets.length };
  });
}
