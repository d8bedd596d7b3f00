import * as vscode from 'vscode';
import * as path from 'node:path';
import type { StepwiseContext } from '../../context';
import { singletonPanel } from '../../panels/panelHost';
import { sandboxPython } from '../../python';
import { readSettings } from '../../settings';
import {
  runFiveStages,
  type FiveStageEvent,
  type FiveStageRun,
  type SuiteRunner,
} from '../../../core/tests/pipeline';
import { loadStageChain } from '../../../core/tests/stages';
import type { FoundFunction } from '../../../core/tests/functions';
import { createSandboxSuiteRunner } from '../../../core/tests/sandboxRunner';
import { TestJudgementStore } from '../../../core/tests/expectationStore';
import { saveJsonAtomically } from '../../../core/files';
import type {
  ExpectationJudgement,
  TestsHost,
  TestsView,
  CodeRunView,
} from '../../../shared/protocols/tests';
import { CODE_SELECTOR, FunctionIndex, ReasonCodeLensProvider } from './codeLens';
import { GeneratedTestsExplorer } from './testExplorer';
import { insertTests } from './insertTests';
import { toView } from './runView';
import { evidenceText } from '../../../core/tests/evidence';

// The feature's old name stays as the view type: VS Code restores an open panel after a reload
// by this id, so renaming it would drop panels that users had open across an update.
const VIEW_TYPE = 'stepwise.codeReasoning';

export function registerTests(ctx: StepwiseContext): void {
  const index = new FunctionIndex();
  ctx.own(vscode.languages.registerCodeLensProvider(CODE_SELECTOR, new ReasonCodeLensProvider(index)));
  ctx.own(vscode.workspace.onDidCloseTextDocument((d) => index.forget(d)));

  // Generated code runs only in a trusted workspace; elsewhere there is no runner at all.
  const runner = (): SuiteRunner | undefined => {
    if (!vscode.workspace.isTrusted) return undefined;
    const s = readSettings();
    // The interpreter is looked up per run: the user may pick another one in the Python extension.
    return async (request) =>
      createSandboxSuiteRunner({
        perTestTimeoutMs: s.tests.perTestTimeoutMs,
        suiteTimeoutMs: s.tests.suiteTimeoutMs,
        memoryMb: s.tests.memoryMb,
        diskMb: s.sandbox.diskMb,
        runs: s.tests.runs,
        pythonPath: request.language === 'python' ? await sandboxPython(ctx.log) : undefined,
      })(request);
  };
  const explorer = ctx.own(new GeneratedTestsExplorer(runner, ctx.log));

  let view: CodeRunView | null = null;
  let lastRun: { uri: vscode.Uri; run: FiveStageRun } | undefined;
  let running: AbortController | undefined;
  /** Judgements given in this session, so that the panel shows them when it is redrawn. */
  const judged = new Map<string, ExpectationJudgement>();

  /** Stores a person's judgement of one test of the last run (test-writer training data). */
  const judge = async (name: string, judgement: ExpectationJudgement): Promise<{ file: string }> => {
    if (!lastRun) throw new Error('Run "Reason & Generate Tests" on a function first.');
    const root = ctx.workspaceRoot();
    if (!root) throw new Error('Open a folder first: judgements are stored in its .stepwise folder.');
    const { run, uri } = lastRun;
    const test = run.accumulatedSuite.find((t) => t.name === name);
    const verdict = run.verdicts.find((v) => v.name === name);
    if (!test || !verdict) throw new Error(`The test ${name} is not in the last generated suite.`);
    const store = new TestJudgementStore(path.join(root.fsPath, '.stepwise'));
    await store.append({
      judgement,
      function: {
        name: run.function.qualifiedName,
        language: run.function.language,
        signature: run.function.signature,
        docstring: run.function.docstring,
      },
      file: vscode.workspace.asRelativePath(uri),
      test: { name, source: test.assertion?.line ?? test.source, stage: test.stage },
      onUser: verdict.onUser,
      userOutput: verdict.userOutput?.slice(0, 2000),
      confidence: verdict.evidence?.confidence,
      evidence: verdict.evidence ? evidenceText(verdict.evidence) : undefined,
      model: run.model.name,
    });
    judged.set(name, judgement);
    const v = view?.verdicts.find((x) => x.name === name);
    if (v) v.judgement = judgement;
    return { file: vscode.workspace.asRelativePath(store.file) };
  };

  /** The test of the last run under the cursor of the active editor (an inserted test). */
  const testAtCursor = (): string | undefined => {
    const editor = vscode.window.activeTextEditor;
    if (!editor || !lastRun) return undefined;
    const line = editor.document.lineAt(editor.selection.active.line).text.trim();
    if (!line) return undefined;
    const hit = lastRun.run.accumulatedSuite.find(
      (t) =>
        t.assertion?.line.trim() === line ||
        t.source.split('\n').some((l) => l.trim() === line && /assert/.test(l)),
    );
    return hit?.name;
  };
  for (const [command, judgement] of [
    ['stepwise.tests.accept', 'accept'],
    ['stepwise.tests.reject', 'reject'],
  ] as const)
    ctx.command(command, async (nameArg?: unknown) => {
      const name = typeof nameArg === 'string' ? nameArg : testAtCursor();
      if (!name) {
        void vscode.window.showInformationMessage(
          'Put the cursor on a generated test line (inserted from the last "Reason & Generate Tests" run), then accept or reject it.',
        );
        return undefined;
      }
      const r = await judge(name, judgement);
      vscode.window.setStatusBarMessage(
        `Stepwise: ${judgement === 'accept' ? 'accepted' : 'rejected'} ${name} (saved in ${r.file})`,
        4000,
      );
      return r;
    });

  const panel = singletonPanel<TestsHost, TestsView>(ctx, {
    viewType: VIEW_TYPE,
    bundle: 'tests',
    title: 'Stepwise: Reason & Generate Tests',
    handlers: () => ({
      state: () => view,
      cancel: () => {
        running?.abort();
        return null;
      },
      judgeExpectation: ({ name, judgement }) => judge(name, judgement),
      insertTests: async ({ names }) => {
        if (!lastRun) throw new Error('There is no generated suite to insert yet.');
        const chosen = lastRun.run.accumulatedSuite.filter((t) => names.includes(t.name));
        return insertTests(
          lastRun.uri,
          lastRun.run.function.language,
          lastRun.run.function.qualifiedName,
          chosen,
        );
      },
    }),
    column: vscode.ViewColumn.Beside,
    preserveFocus: true,
  });
  ctx.command('stepwise.tests.insert', async (namesArg?: unknown) => {
    if (!lastRun) throw new Error('Run "Reason & Generate Tests" on a function first.');
    const { run, uri } = lastRun;
    const reference = run.scores?.reference ?? 'user';
    // Without an explicit choice, only tests that pass on the reference are offered: a test that
    // fails there is more likely wrong than the code.
    const names = Array.isArray(namesArg)
      ? (namesArg as string[])
      : run.verdicts
          .filter((v) => (reference === 'user' ? v.onUser : v.onGenerated) === 'passed')
          .map((v) => v.name);
    return insertTests(
      uri,
      run.function.language,
      run.function.qualifiedName,
      run.accumulatedSuite.filter((t) => names.includes(t.name)),
    );
  });

  ctx.command(
    'stepwise.tests.generate',
    async (uriArg?: unknown, nameArg?: unknown, optionsArg?: unknown) => {
      const options = (optionsArg ?? {}) as { maxTokens?: number };
      const target = await pickFunction(
        index,
        uriArg as vscode.Uri | undefined,
        nameArg as string | undefined,
      );
      if (!target) return undefined;
      const { document, fn } = target;
      const runSuite = runner();
      if (!runSuite) {
        void vscode.window
          .showWarningMessage(
            'Stepwise will reason and write tests, but will not run them: this workspace is not trusted, and generated code only runs in trusted workspaces.',
            'Manage Workspace Trust',
          )
          .then((c) => c && vscode.commands.executeCommand('workbench.trust.manage'));
      }
      running?.abort();
      const abort = new AbortController();
      running = abort;
      const chain = loadStageChain();
      view = {
        functionName: fn.qualifiedName,
        file: vscode.workspace.asRelativePath(document.uri),
        language: fn.language,
        model: '',
        phase: 'reasoning',
        stages: chain.stages.map((s) => ({
          id: s.id,
          name: s.name,
          purpose: s.purpose,
          testFocus: s.testFocus,
          reasoning: '',
          testWriterOutput: '',
          tests: [],
          status: 'waiting',
        })),
        verdicts: [],
      };
      const handle = panel.show();
      await handle.ready;
      const push = () => view && handle.rpc.emit('update', view);
      push();
      const onEvent = (e: FiveStageEvent) => {
        if (!view) return;
        if (e.type === 'token')
          return handle.rpc.emit('token', { stage: e.stage, role: e.role, text: e.text });
        if (e.type === 'stage-start') {
          const s = view.stages.find((x) => x.id === e.stage)!;
          s.status = e.role === 'generator' ? 'reasoning' : 'writing-tests';
        } else if (e.type === 'stage-done') {
          const s = view.stages.find((x) => x.id === e.result.stage.id)!;
          Object.assign(s, {
            status: 'done',
            reasoning: e.result.reasoning,
            testWriterOutput: e.result.testWriterOutput,
            tests: e.result.tests,
            dropped: e.result.rejected,
          });
        } else if (e.type === 'sampling') {
          view.message = `Sampling ${e.of - 1} independent implementation(s) as evidence for the tests…`;
        } else if (e.type === 'repairing') {
          view.message = `Sampling ${e.of} implementation(s) again, shown the docstring example(s) the first ones failed…`;
        } else if (e.type === 'running-suite') {
          view.phase = 'running-tests';
          view.message = `Running ${e.tests} accumulated tests against ${e.against === 'user' ? 'your function' : 'the generated code'}…`;
        }
        push();
      };
      try {
        const run = await vscode.window.withProgress(
          {
            location: vscode.ProgressLocation.Notification,
            title: `Stepwise: reasoning about ${fn.qualifiedName}`,
            cancellable: true,
          },
          (progress, token) => {
            token.onCancellationRequested(() => abort.abort());
            return ctx.model.use(`reasoning about ${fn.name}`, (model) => {
              view!.model = `${model.info.name} (${model.info.device})`;
              return runFiveStages({
                model,
                target: fn,
                fileSource: document.getText(),
                file: document.uri.fsPath,
                runSuite,
                referenceMode: readSettings().tests.reference,
                agreementSamples: readSettings().tests.agreementSamples,
                evidenceSamples: readSettings().tests.evidenceSamples,
                confirmThreshold: readSettings().tests.confirmThreshold,
                maxTokens:
                  options.maxTokens ??
                  Math.min(readSettings().model.maxOutputTokens, readSettings().tests.stageMaxTokens),
                signal: abort.signal,
                chain,
                onEvent: (e) => {
                  if (e.type === 'stage-start' && e.role === 'generator')
                    progress.report({ message: `stage ${e.stage} of 5`, increment: 18 });
                  onEvent(e);
                },
              });
            });
          },
        );
        lastRun = { uri: document.uri, run };
        judged.clear();
        const location = new vscode.Location(document.uri, new vscode.Range(fn.nameLine, 0, fn.nameLine, 0));
        explorer.addRun(document.uri, run, location);
        view = toView(run, view);
        push();
        await saveRun(ctx, run);
        return run;
      } catch (err) {
        if (view) {
          view.phase = abort.signal.aborted ? 'cancelled' : 'error';
          view.message = abort.signal.aborted ? 'Cancelled.' : (err as Error).message;
          push();
        }
        if (!abort.signal.aborted) throw err;
        return undefined;
      } finally {
        if (running === abort) running = undefined;
      }
    },
  );
}

async function saveRun(ctx: StepwiseContext, run: FiveStageRun): Promise<void> {
  const root = ctx.workspaceRoot();
  if (!root) return;
  const stamp = run.startedAt.replace(/[:.]/g, '-');
  const file = path.join(
    root.fsPath,
    '.stepwise',
    'code-runs',
    `${stamp}-${run.function.qualifiedName.replace(/[^\w.-]/g, '_')}.json`,
  );
  try {
    await saveJsonAtomically(file, run);
  } catch (err) {
    ctx.log.warn(`Could not save the code-reasoning run to ${file}: ${String(err)}`);
  }
}

async function pickFunction(
  index: FunctionIndex,
  uri: vscode.Uri | undefined,
  name: string | undefined,
): Promise<{ document: vscode.TextDocument; fn: FoundFunction } | undefined> {
  const document = uri
    ? await vscode.workspace.openTextDocument(uri)
    : vscode.window.activeTextEditor?.document;
  if (!document) {
    void vscode.window.showInformationMessage(
      'Open a Python, JavaScript or TypeScript file and put the cursor in a function.',
    );
    return undefined;
  }
  const functions = await index.functionsOf(document);
  if (!functions.length) {
    void vscode.window.showInformationMessage(
      `Stepwise found no function in ${vscode.workspace.asRelativePath(document.uri)}.`,
    );
    return undefined;
  }
  if (name) {
    const fn = functions.find((f) => f.qualifiedName === name);
    if (!fn)
      throw new Error(
        `The function ${name} is no longer in ${vscode.workspace.asRelativePath(document.uri)}.`,
      );
    return { document, fn };
  }
  const cursor =
    vscode.window.activeTextEditor?.document === document
      ? vscode.window.activeTextEditor.selection.active.line
      : -1;
  const around = functions.filter((f) => f.startLine <= cursor && cursor <= f.endLine).pop();
  if (around) return { document, fn: around };
  const pick = await vscode.window.showQuickPick(
    functions.map((f) => ({ label: f.qualifiedName, description: `line ${f.nameLine + 1}`, fn: f })),
    { title: 'Reason & generate tests for which function?' },
  );
  return pick && { document, fn: pick.fn };
}
