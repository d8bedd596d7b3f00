/**
 * `stepwise eval tests`: how good are the tests the five-stage pipeline writes? Per function of
 * HumanEval or MBPP, the pipeline reasons about the reference implementation and writes tests at
 * every stage; then, in the sandbox:
 *  - admitted: tests the pipeline took into its suite — single assertions on the function, which
 *    the oracle judges out of reach of the code under test (or whole test functions where a stage
 *    wrote no assertion line), duplicates left out;
 *  - valid: admitted tests the reference implementation passes;
 *  - mutation score: the share of known-wrong mutants of the reference (single AST mutations that
 *    the dataset's own tests reject) that at least one valid test rejects;
 *  - the generator's stage-5 code against the dataset's own tests (its pass rate);
 *  - the generator and test-writer rewards of seed 002 on the accumulated suite;
 *  - verdict evidence (evidence.ts): the confidence of every test the reference fails (each one a
 *    false alarm once confirmed) and, per known-wrong mutant taken as the user's function, of every
 *    test it fails (a detection once confirmed; a correct verdict when the reference passes that
 *    test). Thresholds are applied in the summary, so one run serves any threshold.
 */
import { findFunctions } from '../tests/functions';
import { DEFAULT_EVIDENCE_SAMPLES } from '../tests/evidence';
import { runFiveStages, type FiveStageRun, type SuiteRunner } from '../tests/pipeline';
import { exampleTests } from '../tests/specExamples';
import { inputsCovered, raisedOn } from '../tests/preconditions';
import { alternativeRules } from './verdictRules';
import { encodeRow, exampleFailsFromMatrix, type ExampleFail, type PassMatrix } from './passMatrix';
export type { ExampleFail };
import type { VerdictStatus } from '../tests/rewards';
import { createSandboxSuiteRunner } from '../tests/sandboxRunner';
import type { StageChain } from '../tests/stages';
import type { ModelBackend } from '../model/types';
import { runSuite } from '../sandbox/index';
import type { SandboxTest, TestStatus } from '../sandbox/types';
import type { CodeTask } from './datasets';
import type { Mutant } from './mutants';
import { truncate } from '../text/truncate';

export interface TestsEvalSettings {
  maxTokens: number;
  temperature: number;
  seed?: number;
  /** Per-test limit in the sandbox. */
  perTestTimeoutMs: number;
  memoryMb: number;
  pythonPath?: string;
  /**
   * Stage definitions to reason with instead of the shipped prompts/code/stages.json. `evalTests`
   * reads the file once and hands every item the result as `TestsEvalContext.chain`;
   * `evaluateCodeTask` itself does not read it.
   */
  stagesFile?: string;
  /**
   * An endpoint's assertion grammar as asked for (`--assertion-grammar`; the backend reads it from
   * its own options). Recorded so that a journal is never resumed under another grammar.
   */
  assertionGrammar?: 'auto' | 'expressions' | 'lines';
  /** Independent implementations sampled as evidence besides the stage-5 code (--samples). */
  evidenceSamples?: number;
}

/** A test the user's function fails, with the confidence of the evidence behind it. */
export interface FailEvidence {
  confidence: number;
  /** Counted implementations that pass the test (absent in older journals). */
  implementationsPassing?: number;
  /** Whether the reference passes the test (for a mutant: the failure is real). */
  referencePasses: boolean;
  /**
   * The confidence under the rules weighed against the product's (docs/test-verdicts.md), so one
   * run compares them: every implementation counted, examples or not (the rule before examples),
   * and the counted implementations with the user's function added as one more.
   */
  alternatives?: { everyImplementation: number; withUser: number };
  /**
   * The user's function raised on the test's call (a test expecting a value), and whether the input
   * is shaped like a docstring example's (preconditions.ts): a raise on an input unlike every
   * example is not confirmed. Absent in older journals.
   */
  raised?: boolean;
  covered?: boolean;
}

export interface TestsItemResult {
  id: string;
  format: CodeTask['format'];
  entryPoint: string;
  tests: {
    admitted: number;
    /** Of the admitted: assertion tests, judged by the oracle (the rest ran as test functions). */
    oracle: number;
    /** Lines of the test writers' output that were not admitted (with reasons in a pipeline run). */
    rejectedLines: number;
    valid: number;
    /** Valid tests per stage 1–5. */
    validByStage: number[];
    /**
     * The admitted tests that failed on the reference, as written, with what the sandbox said:
     * what a reader of the journal needs to see why tests are invalid. Absent in older journals.
     */
    invalid?: { stage: number; test: string; status: VerdictStatus; output?: string }[];
    /** Why the rejected lines were rejected, counted (numbers in a reason read as N). */
    rejectedReasons?: Record<string, number>;
  };
  mutants: {
    generated: number;
    /** Mutants the dataset's own tests reject: certainly wrong, so a good suite rejects them too. */
    knownWrong: number;
    killed: number;
    /** killed / knownWrong; null when no mutant is known to be wrong. */
    score: number | null;
    byKind: Record<string, { knownWrong: number; killed: number }>;
  };
  /** The dataset's own tests on the reference (a check of the dataset and the sandbox). */
  referencePassesOfficial: boolean;
  generator: { wroteCode: boolean; officialStatus: TestStatus; officialOutput?: string };
  rewards: { validity: number; generator: number; testWriter: number };
  /**
   * Verdict evidence: tests the reference fails (false alarms at any threshold they reach) and,
   * per known-wrong mutant, the tests it fails. Absent in journals from before verdict evidence.
   */
  verdicts?: {
    implementations: number;
    referenceFails: FailEvidence[];
    mutantFails: FailEvidence[][];
    /**
     * The docstring examples the reference and each known-wrong mutant are shown failing
     * (exampleConfirms: the user's own examples need no implementation behind them). Absent in
     * journals from before examples were held against the user's function.
     */
    exampleFails?: { reference: ExampleFail[]; mutants: ExampleFail[][] };
  };
  /**
   * Every admitted test on every implementation, the reference and each known-wrong mutant
   * (passMatrix.ts): rules and thresholds refit from it without a model. Absent in older journals.
   */
  matrix?: PassMatrix;
  /** The specification's examples (specExamples.ts): how many ran, and implementations they set aside. */
  examples?: { tests: number; setAside: number };
  /** The repair round, where the examples left fewer than two implementations counting (pipeline.ts). */
  repair?: FiveStageRun['repair'];
  /** Stages and sampling are parts of the pipeline's time (absent in older journals). */
  ms: {
    pipeline: number;
    sandbox: number;
    stages?: number;
    samples?: number;
    /** The repair round's model time (pipeline.ts), where there was one. */
    repair?: number;
    /** Per stage: its whole time, and its generator's share with the tokens it wrote. */
    byStage?: { ms: number; generatorMs: number; generatorTokens: number }[];
  };
}

export interface TestsEvalContext {
  model: ModelBackend;
  settings: TestsEvalSettings;
  mutants: Mutant[];
  /** The stage definitions to reason with; the shipped ones when absent. */
  chain?: StageChain;
  signal?: AbortSignal;
}

/** The sandbox limits every run of a task's code gets, from the evaluation's settings. */
function sandboxLimits(
  settings: Pick<TestsEvalSettings, 'perTestTimeoutMs' | 'memoryMb' | 'pythonPath'>,
  signal: AbortSignal | undefined,
) {
  return {
    timeoutMs: settings.perTestTimeoutMs,
    memoryMb: settings.memoryMb,
    pythonPath: settings.pythonPath,
    signal,
  };
}

export async function evaluateCodeTask(task: CodeTask, ctx: TestsEvalContext): Promise<TestsItemResult> {
  const { settings, signal } = ctx;
  const target = await taskTarget(task);

  const limits = sandboxLimits(settings, signal);
  let sandboxMs = 0;
  const timed = async <T>(work: () => Promise<T>): Promise<T> => {
    const t0 = Date.now();
    try {
      return await work();
    } finally {
      sandboxMs += Date.now() - t0;
    }
  };
  const suiteTimeoutMs = (n: number) => Math.min(600_000, 30_000 + n * settings.perTestTimeoutMs);
  // Generated tests go through the product's runner: assertion lines to the oracle, which keeps
  // the expected values away from the code under test, whole test functions to pytest.
  const runner = (n: number) =>
    createSandboxSuiteRunner({
      ...limits,
      suiteTimeoutMs: suiteTimeoutMs(n),
      perTestTimeoutMs: settings.perTestTimeoutMs,
    });
  const suiteRunner: SuiteRunner = (request) => timed(() => runner(request.tests.length)(request));
  /** Trusted test code (the dataset's own) on candidates that each travel inside their test module. */
  const pytest = (tests: SandboxTest[]) =>
    tests.length
      ? timed(
          async () =>
            (
              await runSuite({
                language: 'python',
                code: '',
                tests,
                ...limits,
                suiteTimeoutMs: suiteTimeoutMs(tests.length),
              })
            ).verdicts,
        )
      : Promise.resolve([]);

  const t0 = Date.now();
  let samplingFrom = 0;
  let samplingMs = 0;
  const run = await runFiveStages({
    model: ctx.model,
    target,
    fileSource: task.referenceCode,
    runSuite: suiteRunner,
    referenceMode: 'user',
    evidenceSamples: settings.evidenceSamples ?? DEFAULT_EVIDENCE_SAMPLES,
    chain: ctx.chain,
    maxTokens: settings.maxTokens,
    temperature: settings.temperature,
    seed: settings.seed,
    signal,
    // Where a function's time goes: sampling ends when the suite starts to run.
    onEvent: (e) => {
      if (e.type === 'sampling') samplingFrom = Date.now();
      else if (e.type === 'running-suite' && e.against === 'user' && samplingFrom)
        samplingMs = Date.now() - samplingFrom;
    },
  });
  const pipelineMs = Date.now() - t0 - sandboxMs;
  signal?.throwIfAborted();

  // The dataset's own tests on the reference and every mutant, in one run: each candidate travels
  // inside its test module, so they cannot see one another. These are trusted code.
  const candidates = [task.referenceCode, ...ctx.mutants.map((m) => m.code)];
  const official = await pytest(
    candidates.map((code, i) => ({ name: `official-${i}`, source: `${code}\n\n${task.officialTest}` })),
  );
  const statusOf = (i: number): TestStatus => official[i]?.status ?? 'error';
  // The generated code is untrusted: it is the module under test, apart from the tests.
  const generatedVerdict = run.generatedCode.trim()
    ? await timed(
        async () =>
          (
            await runSuite({
              language: 'python',
              code: run.generatedCode,
              tests: [{ name: 'official', source: task.officialTest }],
              ...limits,
              suiteTimeoutMs: suiteTimeoutMs(1),
            })
          ).verdicts[0],
      )
    : undefined;
  const generatedOfficial: TestStatus = generatedVerdict?.status ?? 'error';
  const knownWrong = ctx.mutants.map((m, i) => ({ m, i })).filter(({ i }) => statusOf(i + 1) !== 'passed');

  const valid = run.accumulatedSuite.filter((_, i) => run.verdicts[i]?.onUser === 'passed');
  const fails = (status: TestStatus | undefined) =>
    status === 'failed' || status === 'error' || status === 'timeout';
  const referencePasses = (name: string) => run.verdicts.find((v) => v.name === name)?.onUser === 'passed';
  const rules = alternativeRules(run);
  const referenceRow = run.verdicts.map((v) => v.onUser);
  const referenceWithUser = rules.withUser(referenceRow);
  // The precondition rule's inputs (preconditions.ts): which tests expect a value, and which calls
  // are shaped like a docstring example's.
  const expectsValue = run.accumulatedSuite.map((t) => !!t.assertion && t.assertion.check !== 'raises');
  const testLines = run.accumulatedSuite.map((t) => t.assertion?.line ?? t.source);
  const covered = await inputsCovered(target.name, 'python', testLines, run.examples?.tests ?? []);
  const raisedRow = (status: readonly TestStatus[], output: (k: number) => string | undefined) =>
    status.map((st, k) => expectsValue[k] && st === 'failed' && !!raisedOn(output(k)));
  const referenceRaised = raisedRow(referenceRow, (k) => run.verdicts[k]?.userOutput);
  const referenceFails: FailEvidence[] = run.verdicts.flatMap((v, t) =>
    fails(v.onUser)
      ? [
          {
            confidence: v.evidence?.confidence ?? 0,
            implementationsPassing: v.evidence?.implementationsPassing ?? 0,
            referencePasses: false,
            alternatives: { everyImplementation: rules.every[t], withUser: referenceWithUser[t] },
            raised: referenceRaised[t],
            covered: covered[t],
          },
        ]
      : [],
  );
  // Every admitted test runs on every known-wrong mutant, as it would on a user's wrong function:
  // the mutation score counts the valid tests that reject it, the verdicts every test it fails.
  // The docstring's examples run with them: a mutant that fails one is shown failing on its own
  // docstring's word (exampleConfirms), as the user's function would be.
  const examples = await exampleTests(target, new Set(run.accumulatedSuite.map((t) => t.name)));
  const mutantSuite = [...run.accumulatedSuite, ...examples];
  const killed = new Set<number>();
  const mutantFails: FailEvidence[][] = [];
  const mutantRows: string[] = [];
  const mutantExampleRows: string[] = [];
  const mutantRaised: string[] = [];
  for (const { m, i } of mutantSuite.length ? knownWrong : []) {
    signal?.throwIfAborted();
    const r = await suiteRunner({ language: 'python', code: m.code, tests: mutantSuite, signal });
    const status = new Map(r.verdicts.map((v) => [v.name, v.status]));
    const outputs = new Map(r.verdicts.map((v) => [v.name, v.output ?? v.message]));
    mutantExampleRows.push(encodeRow(examples.map((t) => status.get(t.name) ?? ('error' as const))));
    if (valid.some((t) => status.get(t.name) !== 'passed')) killed.add(i);
    const row = run.accumulatedSuite.map((t) => status.get(t.name) ?? ('error' as const));
    const withUser = rules.withUser(row);
    const raised = raisedRow(row, (k) => outputs.get(run.accumulatedSuite[k].name));
    mutantRaised.push(raisedLetters(raised));
    mutantRows.push(encodeRow(row));
    mutantFails.push(
      run.accumulatedSuite.flatMap((t, k) =>
        fails(row[k])
          ? [
              {
                confidence: run.verdicts[k]?.evidence?.confidence ?? 0,
                implementationsPassing: run.verdicts[k]?.evidence?.implementationsPassing ?? 0,
                referencePasses: referencePasses(t.name),
                alternatives: { everyImplementation: rules.every[k], withUser: withUser[k] },
                raised: raised[k],
                covered: covered[k],
              },
            ]
          : [],
      ),
    );
  }
  const matrix: PassMatrix = {
    implementations: rules.matrix.map(encodeRow),
    counted: run.examples?.implementationsCounted ?? rules.matrix.map(() => true),
    reference: encodeRow(referenceRow),
    mutants: mutantRows,
    tests: testLines.map((l) => truncate(l, 300)),
    covered: covered.map((c) => (c ? '1' : '0')).join(''),
    raised: { reference: raisedLetters(referenceRaised), mutants: mutantRaised },
    ...(run.timeCapped ? { timeCapped: run.timeCapped } : {}),
    ...(run.examples?.tests.length
      ? {
          examples: {
            lines: run.examples.tests,
            implementations: (run.examples.onImplementations ?? []).map(encodeRow),
            reference: encodeRow(run.examples.onUser),
            mutants: mutantExampleRows,
          },
        }
      : {}),
  };
  const byKind: TestsItemResult['mutants']['byKind'] = {};
  for (const { m, i } of knownWrong) {
    const k = (byKind[m.kind] ??= { knownWrong: 0, killed: 0 });
    k.knownWrong++;
    if (killed.has(i)) k.killed++;
  }
  const scores = run.scores;
  return {
    id: task.id,
    format: task.format,
    entryPoint: task.entryPoint,
    tests: {
      admitted: run.accumulatedSuite.length,
      oracle: run.accumulatedSuite.filter((t) => t.assertion).length,
      rejectedLines: run.stages.reduce((n, st) => n + st.rejected.length, 0),
      valid: valid.length,
      validByStage: [1, 2, 3, 4, 5].map((s) => valid.filter((t) => t.stage === s).length),
      invalid: run.accumulatedSuite.flatMap((t, i) => {
        const v = run.verdicts[i];
        if (v?.onUser === 'passed') return [];
        const output = v?.userOutput?.trim();
        return [
          {
            stage: t.stage,
            test: truncate(t.assertion?.line ?? t.source, 300),
            status: v?.onUser ?? 'error',
            ...(output ? { output: output.slice(-300) } : {}),
          },
        ];
      }),
      rejectedReasons: countBy(
        run.stages.flatMap((st) => st.rejected.map((r) => r.reason.replace(/\d+/g, 'N'))),
      ),
    },
    mutants: {
      generated: ctx.mutants.length,
      knownWrong: knownWrong.length,
      killed: killed.size,
      score: knownWrong.length ? killed.size / knownWrong.length : null,
      byKind,
    },
    referencePassesOfficial: statusOf(0) === 'passed',
    generator: {
      wroteCode: run.generatedCode.trim() !== '',
      officialStatus: generatedOfficial,
      // Enough to tell a syntax error from a wrong answer when reading the journal.
      ...(generatedOfficial === 'passed' || !generatedVerdict
        ? {}
        : { officialOutput: generatedVerdict.output.slice(-400) }),
    },
    rewards: {
      validity: scores?.validity ?? 0,
      generator: scores?.generatorReward ?? 0.5,
      testWriter: scores?.testWriterReward ?? 0,
    },
    verdicts: {
      implementations: 1 + (run.samples?.length ?? 0),
      referenceFails,
      mutantFails,
      exampleFails: exampleFailsFromMatrix(matrix),
    },
    matrix,
    ...(run.repair ? { repair: run.repair } : {}),
    examples: {
      tests: run.examples?.tests.length ?? 0,
      setAside: run.examples?.implementationsCounted.filter((c) => !c).length ?? 0,
    },
    ms: {
      pipeline: pipelineMs,
      sandbox: sandboxMs,
      stages: run.stages.reduce((n, st) => n + st.ms, 0),
      samples: samplingMs,
      ...(run.repair ? { repair: run.repair.ms } : {}),
      byStage: run.stages.map((st) => ({
        ms: st.ms,
        generatorMs: st.generator?.ms ?? 0,
        generatorTokens: st.generator?.tokens ?? 0,
      })),
    },
  };
}

/**
 * The docstring examples' rows for a journal written before they were kept: the examples run on
 * the reference and on each known-wrong mutant (made as the run made them, so the same mutants in
 * the same order), in the sandbox and without a model. Rules that hold example failures against
 * the user's function are then applied to the old journal (exampleFailsFromMatrix). The
 * implementations' rows cannot be rebuilt (their code was not kept) and are left empty.
 */
export async function replayExampleRows(
  task: CodeTask,
  mutants: Mutant[],
  settings: Pick<TestsEvalSettings, 'perTestTimeoutMs' | 'memoryMb' | 'pythonPath'>,
  signal?: AbortSignal,
): Promise<{ knownWrong: number; examples: PassMatrix['examples'] | null }> {
  const target = await taskTarget(task);
  const limits = sandboxLimits(settings, signal);
  const candidates = [task.referenceCode, ...mutants.map((m) => m.code)];
  const official = await runSuite({
    language: 'python',
    code: '',
    tests: candidates.map((code, i) => ({
      name: `official-${i}`,
      source: `${code}\n\n${task.officialTest}`,
    })),
    ...limits,
    suiteTimeoutMs: Math.min(600_000, 30_000 + candidates.length * settings.perTestTimeoutMs),
  });
  const knownWrong = mutants.filter((_, i) => (official.verdicts[i + 1]?.status ?? 'error') !== 'passed');
  const examples = await exampleTests(target, new Set());
  if (!examples.length) return { knownWrong: knownWrong.length, examples: null };
  const runner = createSandboxSuiteRunner({
    ...limits,
    perTestTimeoutMs: settings.perTestTimeoutMs,
    suiteTimeoutMs: Math.min(600_000, 30_000 + examples.length * settings.perTestTimeoutMs),
  });
  const rowOn = async (code: string) => {
    const r = await runner({ language: 'python', code, tests: examples, signal });
    const status = new Map(r.verdicts.map((v) => [v.name, v.status]));
    return encodeRow(examples.map((t) => status.get(t.name) ?? ('error' as const)));
  };
  const mutantRows: string[] = [];
  for (const m of knownWrong) mutantRows.push(await rowOn(m.code));
  return {
    knownWrong: knownWrong.length,
    examples: {
      lines: examples.map((t) => t.assertion?.line ?? t.source),
      implementations: [],
      reference: await rowOn(task.referenceCode),
      mutants: mutantRows,
    },
  };
}

/** A row of raised flags as the journal keeps it: R where the function raised, . elsewhere. */
const raisedLetters = (row: readonly boolean[]) => row.map((r) => (r ? 'R' : '.')).join('');

/** The dataset function as the user's function: MBPP's references carry no docstring, so the task's text is its specification. */
async function taskTarget(task: CodeTask) {
  const functions = await findFunctions(task.referenceCode, 'python');
  const found = functions.find((f) => f.name === task.entryPoint && f.kind === 'function');
  if (!found) throw new Error(`${task.id}: the reference code defines no function "${task.entryPoint}".`);
  return { ...found, docstring: found.docstring || task.description };
}

export function describeTestsItem(r: TestsItemResult): string {
  const score =
    r.mutants.score === null ? 'no known-wrong mutant' : `mutation score ${r.mutants.score.toFixed(2)}`;
  return `${r.tests.admitted} tests admitted, ${r.tests.valid} valid, ${score}, generated code ${r.generator.officialStatus}`;
}

function countBy(keys: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const k of keys) counts[k] = (counts[k] ?? 0) + 1;
  return counts;
}
