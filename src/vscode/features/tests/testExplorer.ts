import * as vscode from 'vscode';
import type { GeneratedTest } from '../../../core/tests/extractTests';
import type { FiveStageRun, SuiteRunner } from '../../../core/tests/pipeline';
import type { CodeLanguage } from '../../../core/tests/functions';
import {
  evidenceText,
  exampleOutcome,
  exampleOutcomes,
  type UserVerdict,
} from '../../../core/tests/evidence';
import { exampleTests } from '../../../core/tests/specExamples';
import { explorerOutcome } from '../../../shared/testsFigures';

interface SuiteRecord {
  uri: vscode.Uri;
  functionName: string;
  language: CodeLanguage;
  /** Where a failure is shown: the user's function. */
  location: vscode.Location;
  tests: GeneratedTest[];
  /**
   * The pipeline's verdict and evidence per test: a test whose failure the evidence did not
   * confirm stays unconfirmed when re-run, never a failure on the user's code.
   */
  evidence: Map<string, { verdict?: UserVerdict; text?: string }>;
  /**
   * The docstring's examples as runnable tests, for re-runs from the Test Explorer: read again
   * from the function's docstring as the pipeline read them (specExamples.ts), index for index.
   */
  examples: Promise<GeneratedTest[]>;
}

type ItemData =
  | { kind: 'suite'; key: string }
  | { kind: 'stage'; key: string; stage: number }
  | { kind: 'test'; key: string; test: GeneratedTest }
  | { kind: 'examples'; key: string }
  | { kind: 'example'; key: string; index: number; line: string };

/**
 * The accumulated suites in the Test Explorer: one item per function, one per stage, one per
 * test. Running items re-runs those tests in the sandbox against the function's current code.
 */
export class GeneratedTestsExplorer implements vscode.Disposable {
  readonly controller = vscode.tests.createTestController(
    'stepwise.generatedTests',
    'Stepwise generated tests',
  );
  private readonly data = new WeakMap<vscode.TestItem, ItemData>();
  private readonly suites = new Map<string, SuiteRecord>();

  constructor(
    private readonly runSuite: () => SuiteRunner | undefined,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.controller.createRunProfile(
      'Run in sandbox',
      vscode.TestRunProfileKind.Run,
      (request, token) => this.run(request, token),
      true,
    );
  }

  /** Adds (or replaces) the suite of one function and reports the pipeline's verdicts on the user's code. */
  addRun(uri: vscode.Uri, run: FiveStageRun, location: vscode.Location): vscode.TestItem {
    const key = `${uri.toString()}::${run.function.qualifiedName}`;
    this.suites.set(key, {
      uri,
      functionName: run.function.qualifiedName,
      language: run.function.language,
      location,
      tests: run.accumulatedSuite,
      evidence: new Map(
        run.verdicts.map((v) => [
          v.name,
          { verdict: v.verdict, text: v.evidence ? evidenceText(v.evidence) : undefined },
        ]),
      ),
      examples: exampleTests(run.function, new Set(run.accumulatedSuite.map((t) => t.name))).catch(() => []),
    });
    const suite = this.controller.createTestItem(
      key,
      `${run.function.qualifiedName} (${vscode.workspace.asRelativePath(uri)})`,
      uri,
    );
    suite.range = location.range;
    this.data.set(suite, { kind: 'suite', key });
    for (const stage of run.stages) {
      const stageItem = this.controller.createTestItem(
        `${key}#stage${stage.stage.id}`,
        `Stage ${stage.stage.id}: ${stage.stage.name}`,
        uri,
      );
      stageItem.description = stage.stage.testFocus;
      this.data.set(stageItem, { kind: 'stage', key, stage: stage.stage.id });
      for (const test of stage.tests) {
        // An assertion test reads best as its own line; its name stays as the description.
        const item = this.controller.createTestItem(
          `${key}#${test.name}`,
          test.assertion?.line ?? test.name,
          uri,
        );
        if (test.assertion) item.description = test.name;
        item.range = location.range;
        this.data.set(item, { kind: 'test', key, test });
        stageItem.children.add(item);
      }
      suite.children.add(stageItem);
    }
    // The docstring's own examples, beside the generated tests: a plain failure of one is a failure
    // of the user's function whatever the implementations say (the panel's and the CLI's rule), so
    // it gets a red mark in the gutter like a confirmed failure, with the example as its evidence.
    const exampleLines = run.examples?.tests ?? [];
    const exampleItems: vscode.TestItem[] = [];
    if (exampleLines.length) {
      const group = this.controller.createTestItem(`${key}#examples`, 'Docstring examples', uri);
      group.description = 'your own examples: no generated implementation has to back a failure';
      this.data.set(group, { kind: 'examples', key });
      exampleLines.forEach((line, index) => {
        const item = this.controller.createTestItem(`${key}#example${index}`, line, uri);
        item.range = location.range;
        this.data.set(item, { kind: 'example', key, index, line });
        group.children.add(item);
        exampleItems.push(item);
      });
      suite.children.add(group);
    }
    this.controller.items.add(suite);
    if (run.verdicts.length || exampleItems.length) {
      const testRun = this.controller.createTestRun(
        new vscode.TestRunRequest([suite]),
        `Reason & generate tests: ${run.function.qualifiedName}`,
        false,
      );
      for (const v of run.verdicts) {
        const item = this.find(suite, `${key}#${v.name}`);
        if (item) this.report(testRun, item, v.onUser, v.userOutput ?? '', location, key);
      }
      exampleOutcomes(run.examples).forEach((o, e) =>
        this.reportExample(testRun, exampleItems[e], o, location),
      );
      testRun.end();
    }
    return suite;
  }

  private find(root: vscode.TestItem, id: string): vscode.TestItem | undefined {
    if (root.id === id) return root;
    for (const [, child] of root.children) {
      const hit = this.find(child, id);
      if (hit) return hit;
    }
    return undefined;
  }

  private collect(item: vscode.TestItem, out: vscode.TestItem[]): void {
    const d = this.data.get(item);
    if (d?.kind === 'test' || d?.kind === 'example') out.push(item);
    else item.children.forEach((c) => this.collect(c, out));
  }

  private async run(request: vscode.TestRunRequest, token: vscode.CancellationToken): Promise<void> {
    const runSuite = this.runSuite();
    const testRun = this.controller.createTestRun(request);
    const items: vscode.TestItem[] = [];
    (request.include ?? [...this.controller.items].map(([, i]) => i)).forEach((i) => this.collect(i, items));
    const excluded = new Set(request.exclude?.map((i) => i.id));
    const byKey = new Map<string, vscode.TestItem[]>();
    for (const item of items.filter((i) => !excluded.has(i.id))) {
      const d = this.data.get(item) as Extract<ItemData, { kind: 'test' | 'example' }>;
      byKey.set(d.key, [...(byKey.get(d.key) ?? []), item]);
    }
    const abort = new AbortController();
    const sub = token.onCancellationRequested(() => abort.abort());
    try {
      for (const [key, group] of byKey) {
        const suite = this.suites.get(key);
        if (!suite || !runSuite) {
          const why = runSuite
            ? 'The suite is gone; generate it again.'
            : 'Generated tests run only in a trusted workspace.';
          group.forEach((i) => testRun.errored(i, new vscode.TestMessage(why)));
          continue;
        }
        group.forEach((i) => testRun.started(i));
        const document = await vscode.workspace.openTextDocument(suite.uri);
        const examples = await suite.examples;
        // An example item whose example no longer reads from the docstring has nothing to run.
        const testOf = (i: vscode.TestItem): GeneratedTest | undefined => {
          const d = this.data.get(i);
          return d?.kind === 'test' ? d.test : d?.kind === 'example' ? examples[d.index] : undefined;
        };
        const tests = group.flatMap((i) => testOf(i) ?? []);
        try {
          const result = await runSuite({
            language: suite.language,
            code: document.getText(),
            tests,
            signal: abort.signal,
          });
          const verdicts = new Map(result.verdicts.map((v) => [v.name, v]));
          for (const item of group) {
            const d = this.data.get(item);
            const test = testOf(item);
            const v = test && verdicts.get(test.name);
            if (d?.kind === 'example') {
              const o = exampleOutcome(d.line, v?.status ?? 'error', v?.output ?? v?.message ?? '');
              this.reportExample(testRun, item, o, suite.location);
              continue;
            }
            if (!test) continue;
            this.report(
              testRun,
              item,
              v?.status ?? 'error',
              v?.output ?? v?.message ?? 'No verdict came back for this test.',
              suite.location,
              key,
            );
          }
        } catch (err) {
          // A cancelled run marks its tests skipped, as the Testing API expects.
          if (token.isCancellationRequested) group.forEach((i) => testRun.skipped(i));
          else
            group.forEach((i) =>
              testRun.errored(
                i,
                new vscode.TestMessage(`The sandbox could not run: ${(err as Error).message}`),
              ),
            );
          this.log.error(`Test Explorer run failed: ${String(err)}`);
        }
      }
    } finally {
      sub.dispose();
      testRun.end();
    }
  }

  private reportExample(
    testRun: vscode.TestRun,
    item: vscode.TestItem | undefined,
    o: { outcome: string; message: string },
    location: vscode.Location,
  ): void {
    if (!item) return;
    const message = Object.assign(new vscode.TestMessage(o.message.slice(0, 4000)), { location });
    if (o.outcome === 'passed') testRun.passed(item);
    else if (o.outcome === 'failed') testRun.failed(item, message);
    else if (o.outcome === 'errored') testRun.errored(item, message);
    else {
      item.description = o.message.split('\n')[0];
      testRun.appendOutput(`${item.label}: ${o.message.replace(/\n/g, '\r\n')}\r\n`, undefined, item);
      testRun.skipped(item);
    }
  }

  private report(
    testRun: vscode.TestRun,
    item: vscode.TestItem,
    status: string,
    output: string,
    location: vscode.Location,
    key: string,
  ): void {
    const test = this.data.get(item);
    const evidence = test?.kind === 'test' ? this.suites.get(key)?.evidence.get(test.test.name) : undefined;
    // A failure the generated implementations do not back is an expectation to review: skipped,
    // with the evidence beside the item and in the run's output, and no mark on the user's code.
    // The rule is the panel's (src/shared/testsFigures.ts), so both count the same failures.
    if (explorerOutcome(status, evidence?.verdict) === 'skipped') {
      item.description = `unconfirmed expectation to review: ${evidence?.text ?? 'no evidence'}`;
      testRun.appendOutput(
        `${item.label}: unconfirmed expectation to review (your function: ${status}). Evidence: ${evidence?.text ?? 'none'}.\r\n${output.replace(/\n/g, '\r\n')}\r\n`,
        undefined,
        item,
      );
      testRun.skipped(item);
      return;
    }
    if (status === 'failed' && evidence?.text) output = `Confirmed: ${evidence.text}.\n${output}`;
    switch (status) {
      case 'passed':
        testRun.passed(item);
        return;
      case 'failed': {
        const message = failureMessage(output);
        message.location = location;
        testRun.failed(item, message);
        return;
      }
      case 'timeout':
        testRun.errored(item, Object.assign(new vscode.TestMessage(`Timed out.\n${output}`), { location }));
        return;
      case 'uncollectable':
        testRun.errored(
          item,
          Object.assign(
            new vscode.TestMessage(
              `The test does not even collect (syntax error or missing import).\n${output}`,
            ),
            { location },
          ),
        );
        return;
      case 'flaky':
        // Neither a pass nor a failure: errored, with both runs' verdicts in the message.
        testRun.errored(item, Object.assign(new vscode.TestMessage(output), { location }));
        return;
      default:
        testRun.errored(
          item,
          Object.assign(new vscode.TestMessage(output || 'The test errored.'), { location }),
        );
    }
  }

  dispose(): void {
    this.controller.dispose();
  }
}

/** A failed assertion as a diff when the output shows expected and actual values. */
export function failureMessage(output: string): vscode.TestMessage {
  // pytest: "assert 3 == 4"; node: "Expected values to be strictly equal:\n\n3 !== 4"
  const py = /assert (.+?) == (.+?)$/m.exec(output);
  const node = /^\s*(.+?) !== (.+?)\s*$/m.exec(output);
  const m = py ?? node;
  if (m) return vscode.TestMessage.diff(output.slice(0, 4000), m[2].trim(), m[1].trim());
  return new vscode.TestMessage(output.slice(0, 4000) || 'The test failed.');
}
