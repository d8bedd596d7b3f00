import { withFileImports } from './fileImports';
import { resolvePlanSupport } from '../model/planCapability';
import type { RejectedLine } from './assertions';
import { codeBlocks, type GeneratedTest } from './extractTests';
import type { CodeLanguage, FoundFunction } from './functions';
import {
  DEFAULT_AGREEMENT_SAMPLES,
  scoreSuite,
  type DualVerdict,
  type ReferenceMode,
  type SuiteScores,
  type VerdictStatus,
} from './rewards';
import { writeStageTests } from './testWriter';
import {
  DEFAULT_CONFIRM_THRESHOLD,
  DEFAULT_EVIDENCE_SAMPLES,
  MIN_AGREEING_IMPLEMENTATIONS,
  agreesWithExamples,
  exampleConfirms,
  outsideExamplesRule,
  testEvidence,
  userVerdict,
  type TestEvidence,
  type UserVerdict,
} from './evidence';
import { repairImplementations, sampleImplementations } from './implementationSamples';
import { exampleTests } from './specExamples';
import { inputsCovered, raisedOn } from './preconditions';
import { functionPromptValues } from './functionPrompt';
import type { ChatMessage, FinishReason, ModelBackend } from '../model/types';
import { loadStageChain, StageConversation, type StageChain, type StageDefinition } from './stages';

/** Runs an accumulated suite against one implementation (the sandbox, in production). */
export type SuiteRunner = (request: {
  language: CodeLanguage;
  /** The module under test; tests reach the function by name. */
  code: string;
  tests: GeneratedTest[];
  signal?: AbortSignal;
  /** Stop running the code after this many tests ran out of time (generated implementations only). */
  maxTimeouts?: number;
}) => Promise<{
  verdicts: { name: string; status: VerdictStatus; output?: string; message?: string; inProcess?: boolean }[];
  isolation?: string;
  /** Tests not run because maxTimeouts was reached. */
  timeCapped?: number;
}>;

export interface StageResult {
  stage: StageDefinition;
  reasoning: string;
  testWriterOutput: string;
  tests: GeneratedTest[];
  /** Lines of the test writer's output that were not admitted, with why (duplicates included). */
  rejected: RejectedLine[];
  /** Whether the test writer wrote an assertion-lines plan, and how its answer ended. */
  testWriter: { constrained: boolean; finishReason: FinishReason; repeatsDropped: number };
  ms: number;
  /** Tokens of the generator's answer, and the time it took (the rest of `ms` is the test writer's). */
  generator?: { tokens: number; ms: number };
}

export type FiveStageEvent =
  | { type: 'stage-start'; stage: number; role: 'generator' | 'test-writer' }
  | { type: 'token'; stage: number; role: 'generator' | 'test-writer'; text: string }
  | { type: 'stage-done'; result: StageResult }
  | { type: 'sampling'; sample: number; of: number }
  | { type: 'repairing'; of: number }
  | { type: 'running-suite'; against: 'user' | 'generated'; tests: number }
  | { type: 'done'; run: FiveStageRun };

export interface FiveStageRun {
  version: 1;
  function: Pick<FoundFunction, 'name' | 'qualifiedName' | 'language' | 'signature' | 'docstring'>;
  file?: string;
  model: { name: string; backend: string; device: string };
  stages: StageResult[];
  /** The stage-5 code block: the generated implementation. */
  generatedCode: string;
  /** Further implementations sampled from the specification alone: the tests' evidence (evidence.ts). */
  samples?: string[];
  accumulatedSuite: GeneratedTest[];
  /** How the test writer's answers were generated: a plan, or free text with the reason. */
  testWriting: {
    mode: 'constrained' | 'free';
    planMode: string | null;
    /** On an endpoint with grammars: the full expression grammar or the line grammar. */
    assertionGrammar: 'expressions' | 'lines' | null;
    fallbackReason: string | null;
  };
  verdicts: (DualVerdict & {
    userOutput?: string;
    generatedOutput?: string;
    inProcess?: boolean;
    /** How far the generated implementations back this test (evidence.ts). */
    evidence?: TestEvidence;
    /** What is shown on the user's function: a failure only when the evidence confirms it. */
    verdict?: UserVerdict;
  })[];
  /** The confidence a test needs before a failure of the user's function is shown as one. */
  confirmThreshold?: number;
  /**
   * The specification's examples run as tests (specExamples.ts): what the user's function did on
   * them, and which implementations (stage-5 code first, then the samples) passed them all and so
   * counted as evidence.
   */
  examples?: {
    tests: string[];
    onUser: VerdictStatus[];
    /** Each implementation's status on each example (`[k][e]`, the stage-5 code first). */
    onImplementations?: VerdictStatus[][];
    implementationsCounted: boolean[];
    /**
     * The examples the user's function is shown failing: its own docstring is the evidence
     * (exampleConfirms), so these are failures whatever the implementations say.
     */
    failsConfirmed?: boolean[];
    /** What the sandbox said of the user's function on each example it failed. */
    userOutput?: (string | undefined)[];
  };
  /**
   * The repair round (repairImplementations), when the examples left fewer than two implementations
   * counting: how many were set aside, how many were sampled again (they follow the first samples
   * in `samples`), how many of those pass the examples, and the model's time for it.
   */
  repair?: { setAside: number; sampled: number; counted: number; ms: number };
  /**
   * Per implementation (the stage-5 code first, then the samples), the tests it was not run on
   * because it had run out of time on IMPLEMENTATION_MAX_TIMEOUTS of them: they count as timeouts,
   * so it agrees with none of them. Absent when no implementation was stopped.
   */
  timeCapped?: number[];
  /** Null when the suite was not executed. */
  scores: SuiteScores | null;
  referenceMode: ReferenceMode;
  isolation?: string;
  startedAt: string;
  totalMs: number;
}

/** Most tokens of one stage when the caller does not say: stepwise.tests.stageMaxTokens's default. */
export const DEFAULT_STAGE_MAX_TOKENS = 256;

export interface FiveStageOptions {
  model: ModelBackend;
  /** The user's function and the whole file it lives in (the module its tests import). */
  target: FoundFunction;
  fileSource: string;
  file?: string;
  /** Runs the suite in the sandbox; absent (e.g. an untrusted workspace) means generate without executing. */
  runSuite?: SuiteRunner;
  referenceMode?: ReferenceMode;
  /** Agreement mode: independent implementations that must agree (default 3). */
  agreementSamples?: number;
  /**
   * Implementations sampled from the specification alone, besides the stage-5 code, as evidence
   * for each test (default DEFAULT_EVIDENCE_SAMPLES; 0 leaves the stage-5 code alone).
   */
  evidenceSamples?: number;
  /**
   * Sample implementations again, shown the examples they failed, when the specification's examples
   * leave fewer than two counting (default true; needs evidenceSamples above 0).
   */
  repairSetAside?: boolean;
  /** Confidence at which a test the user's function fails is shown as a failure (default fitted). */
  confirmThreshold?: number;
  maxTokens?: number;
  /** Write each stage's tests as an assertion-lines plan where the model can (default true). */
  constrained?: boolean;
  /** Token budget of one assertion line of a plan (default 96). */
  maxTokensPerTestLine?: number;
  temperature?: number;
  seed?: number;
  signal?: AbortSignal;
  onEvent?: (event: FiveStageEvent) => void;
  /** The stage definitions (default: prompts/code/stages.json). */
  chain?: StageChain;
}

export { functionPromptValues, specOf, type PromptFunction } from './functionPrompt';

/**
 * The five-stage chain: at each stage the generator writes that stage's reasoning (seeing the
 * stages before, as one conversation: stages.ts) and the test writer adds tests with the stage's
 * focus. Tests accumulate (an identical test never twice); the whole accumulated suite then runs against the user's function
 * the stage-5 code and further implementations sampled from the specification alone; a test
 * the user's function fails is shown as a failure only when those implementations back it
 * (evidence.ts), and in agreement mode a generated reference rests on consensus (rewards.ts).
 */
export async function runFiveStages(opts: FiveStageOptions): Promise<FiveStageRun> {
  const started = Date.now();
  const chain = opts.chain ?? loadStageChain();
  const { model, target, signal } = opts;
  const emit = opts.onEvent ?? (() => undefined);
  const conversation = new StageConversation(chain, functionPromptValues(target));
  const results: StageResult[] = [];
  const accumulated: GeneratedTest[] = [];
  const taken = new Set<string>();
  // Keys of every admitted test: an identical test is never admitted twice, whatever the stage.
  const seen = new Set<string>();
  const support = await resolvePlanSupport(model, opts.constrained ?? true);
  const testWriting: FiveStageRun['testWriting'] =
    support.mode === 'none'
      ? { mode: 'free', planMode: null, assertionGrammar: null, fallbackReason: support.reason }
      : {
          mode: 'constrained',
          planMode: support.mode,
          assertionGrammar: support.assertionGrammar ?? null,
          fallbackReason: null,
        };
  for (const stage of chain.stages) {
    signal?.throwIfAborted();
    const t0 = Date.now();
    emit({ type: 'stage-start', stage: stage.id, role: 'generator' });
    // Each stage result is a StageTurn: its stage and the reasoning as written.
    // The last stage's code block is the generated implementation: what a small model writes after
    // its closing fence (an explanation, a usage example) is never run, so decoding it only costs
    // time; the fence is put back so that the test writer sees a closed block.
    const codeStage = stage === chain.stages[chain.stages.length - 1];
    const generatorStarted = Date.now();
    const { text: written, tokens: generatorTokens } = await complete(
      model,
      conversation.generator(results, stage),
      opts,
      (text) => emit({ type: 'token', stage: stage.id, role: 'generator', text }),
      codeStage ? [CLOSING_FENCE] : undefined,
    );
    const reasoning = codeStage ? closeFence(written) : written;
    const generator = { tokens: generatorTokens, ms: Date.now() - generatorStarted };
    emit({ type: 'stage-start', stage: stage.id, role: 'test-writer' });
    const writing = await writeStageTests({
      model,
      messages: conversation.testWriter(
        [...results, { stage, reasoning }],
        stage,
        accumulated.map((t) => t.assertion?.line ?? t.source),
      ),
      target,
      stage: stage.id,
      budget: stage.testBudget,
      constrained: testWriting.mode === 'constrained',
      maxTokens: opts.maxTokens ?? DEFAULT_STAGE_MAX_TOKENS,
      maxTokensPerLine: opts.maxTokensPerTestLine ?? 96,
      temperature: opts.temperature,
      seed: opts.seed,
      signal,
      onText: (text) => emit({ type: 'token', stage: stage.id, role: 'test-writer', text }),
      seen,
      taken,
    });
    const { tests, rejected, output: testWriterOutput } = writing;
    accumulated.push(...tests);
    const result: StageResult = {
      stage,
      reasoning,
      testWriterOutput,
      tests,
      rejected,
      testWriter: {
        constrained: writing.constrained,
        finishReason: writing.finishReason,
        repeatsDropped: writing.repeatsDropped,
      },
      ms: Date.now() - t0,
      generator,
    };
    results.push(result);
    emit({ type: 'stage-done', result });
  }

  const generatedCode = withFileImports(
    codeBlocks(results[results.length - 1]?.reasoning ?? '')[0]?.trim() ?? '',
    opts.fileSource,
    target.language,
  );
  const referenceMode = opts.referenceMode ?? 'user';
  const required = opts.agreementSamples ?? DEFAULT_AGREEMENT_SAMPLES;
  // Independent implementations, from the specification alone: the evidence each test is judged
  // by (evidence.ts), and in agreement mode the candidates for a consensus reference.
  const sampleCount = opts.runSuite
    ? Math.max(
        opts.evidenceSamples ?? DEFAULT_EVIDENCE_SAMPLES,
        referenceMode === 'agreement' ? required - 1 : 0,
      )
    : 0;
  signal?.throwIfAborted();
  if (sampleCount > 0) emit({ type: 'sampling', sample: 2, of: sampleCount + 1 });
  const samples = await sampleImplementations({
    model,
    target,
    fileSource: opts.fileSource,
    count: sampleCount,
    maxTokens: opts.maxTokens ?? DEFAULT_STAGE_MAX_TOKENS,
    temperature: 0.8,
    seed: (opts.seed ?? 0) + 1,
    signal,
  });
  const base = {
    version: 1 as const,
    function: {
      name: target.name,
      qualifiedName: target.qualifiedName,
      language: target.language,
      signature: target.signature,
      docstring: target.docstring,
    },
    file: opts.file,
    model: { name: model.info.name, backend: model.info.backend, device: model.info.device },
    stages: results,
    generatedCode,
    ...(samples.length ? { samples } : {}),
    accumulatedSuite: accumulated,
    testWriting,
    referenceMode,
    startedAt: new Date(started).toISOString(),
  };
  if (!opts.runSuite) {
    const run: FiveStageRun = { ...base, verdicts: [], scores: null, totalMs: Date.now() - started };
    emit({ type: 'done', run });
    return run;
  }
  // The specification's own examples run with the suite, on the implementations and the user's
  // function alike; an implementation that fails one is set aside as evidence (evidence.ts).
  const examples = await exampleTests(target, taken);
  // Examples first: an implementation stopped for its timeouts (IMPLEMENTATION_MAX_TIMEOUTS) has
  // then still been judged on them, and so is set aside or counted for what it does on them.
  const suite = [...examples, ...accumulated];
  // Per implementation (stage-5 code first), the tests not run after it ran out of time too often.
  const capped: number[] = [];
  const implementationRun = async (code: string) => {
    const r = await opts.runSuite!({
      language: target.language,
      code,
      tests: suite,
      signal,
      maxTimeouts: IMPLEMENTATION_MAX_TIMEOUTS,
    });
    capped.push(r.timeCapped ?? 0);
    return r;
  };
  emit({ type: 'running-suite', against: 'user', tests: accumulated.length });
  const onUser = await opts.runSuite({
    language: target.language,
    code: opts.fileSource,
    tests: suite,
    signal,
  });
  emit({ type: 'running-suite', against: 'generated', tests: accumulated.length });
  const onGenerated = await implementationRun(generatedCode);
  const onSamples = [];
  for (const code of samples) {
    signal?.throwIfAborted();
    // A sample without code passes nothing; there is nothing to run.
    onSamples.push(code ? await implementationRun(code) : (capped.push(0), { verdicts: [] }));
  }
  const byName = (list: typeof onUser.verdicts) => new Map(list.map((v) => [v.name, v]));
  const u = byName(onUser.verdicts);
  const g = byName(onGenerated.verdicts);
  const s = onSamples.map((r) => byName(r.verdicts));
  const statuses = (m: typeof u, tests: GeneratedTest[]) =>
    tests.map((t) => m.get(t.name)?.status ?? ('error' as const));
  const exampleOnUser = statuses(u, examples);
  let onImplementations = [g, ...s].map((m) => statuses(m, examples));
  let counted = agreesWithExamples(onImplementations, exampleOnUser);
  const exampleLines = examples.map((t) => t.assertion?.line ?? t.source);
  // Fewer than two implementations left by the examples cannot confirm anything (evidence.ts):
  // sample again, showing the examples the set-aside ones failed, and run the suite on the new ones.
  let repair: FiveStageRun['repair'];
  const countedBefore = counted.filter(Boolean).length;
  if (samples.length && opts.repairSetAside !== false && countedBefore < MIN_AGREEING_IMPLEMENTATIONS) {
    const t0 = Date.now();
    const failures = exampleFailuresText(examples, [g, ...s], onImplementations, exampleOnUser);
    const count = Math.min(MAX_REPAIRS, counted.length - countedBefore);
    signal?.throwIfAborted();
    emit({ type: 'repairing', of: count });
    const repaired = await repairImplementations({
      model,
      target,
      fileSource: opts.fileSource,
      count,
      failures,
      maxTokens: opts.maxTokens ?? DEFAULT_STAGE_MAX_TOKENS,
      temperature: 0.8,
      seed: (opts.seed ?? 0) + 2,
      signal,
    });
    let sandboxMs = 0;
    for (const code of repaired) {
      signal?.throwIfAborted();
      const r0 = Date.now();
      const r = code ? await implementationRun(code) : (capped.push(0), { verdicts: [] });
      sandboxMs += Date.now() - r0;
      samples.push(code);
      s.push(byName(r.verdicts));
    }
    onImplementations = [g, ...s].map((m) => statuses(m, examples));
    counted = agreesWithExamples(onImplementations, exampleOnUser);
    repair = {
      setAside: counted.length - repaired.length - countedBefore,
      sampled: repaired.length,
      counted: counted.slice(-repaired.length).filter(Boolean).length,
      ms: Date.now() - t0 - sandboxMs,
    };
  }
  const matrix = [g, ...s].map((m) => statuses(m, accumulated));
  const evidence = testEvidence(matrix, accumulated.length, counted);
  // A test the user's function fails (expecting a value, not an exception) on an input shaped unlike
  // every docstring example is not blamed on the user: outsideExamplesRule, preconditions.ts.
  const failedValue = accumulated.map(
    (t) => !!t.assertion && t.assertion.check !== 'raises' && u.get(t.name)?.status === 'failed',
  );
  const raised = accumulated.map((t, i) =>
    failedValue[i] ? raisedOn(u.get(t.name)?.output ?? u.get(t.name)?.message) : undefined,
  );
  const covered = await inputsCovered(
    target.name,
    target.language,
    accumulated.map((t, i) => (failedValue[i] ? (t.assertion?.line ?? t.source) : '')),
    exampleLines,
  );
  failedValue.forEach((failed, i) => {
    if (
      !failed ||
      !outsideExamplesRule({ raised: !!raised[i], covered: covered[i] }, exampleLines.length > 0)
    )
      return;
    evidence[i] = raised[i]
      ? { ...evidence[i], outsideExamples: raised[i] }
      : { ...evidence[i], valueOutsideExamples: true };
  });
  const threshold = opts.confirmThreshold ?? DEFAULT_CONFIRM_THRESHOLD;
  const verdicts = accumulated.map((t, i) => {
    const onGeneratedStatus = g.get(t.name)?.status ?? 'error';
    const onUserStatus = u.get(t.name)?.status ?? 'error';
    return {
      name: t.name,
      stage: t.stage,
      onUser: onUserStatus,
      onGenerated: onGeneratedStatus,
      ...(samples.length
        ? { onSamples: [onGeneratedStatus, ...s.map((m) => m.get(t.name)?.status ?? ('error' as const))] }
        : {}),
      input: t.assertion?.call ?? t.source,
      userOutput: u.get(t.name)?.output ?? u.get(t.name)?.message,
      generatedOutput: g.get(t.name)?.output ?? g.get(t.name)?.message,
      inProcess: u.get(t.name)?.inProcess ?? !t.assertion,
      evidence: evidence[i],
      verdict: userVerdict(onUserStatus, evidence[i], threshold),
    };
  });
  const run: FiveStageRun = {
    ...base,
    verdicts,
    scores: scoreSuite(verdicts, referenceMode, required),
    confirmThreshold: threshold,
    examples: {
      tests: exampleLines,
      onUser: exampleOnUser,
      onImplementations,
      implementationsCounted: counted,
      failsConfirmed: exampleOnUser.map((st, e) => exampleConfirms(st, exampleLines[e])),
      userOutput: examples.map((t, e) =>
        exampleOnUser[e] === 'passed' ? undefined : (u.get(t.name)?.output ?? u.get(t.name)?.message),
      ),
    },
    ...(repair ? { repair } : {}),
    ...(capped.some((n) => n > 0) ? { timeCapped: capped } : {}),
    isolation: onUser.isolation,
    totalMs: Date.now() - started,
  };
  emit({ type: 'done', run });
  return run;
}

async function complete(
  model: ModelBackend,
  messages: ChatMessage[],
  opts: FiveStageOptions,
  onText: (t: string) => void,
  stop?: string[],
): Promise<{ text: string; tokens: number }> {
  const result = await model.generate(messages, {
    maxTokens: opts.maxTokens ?? DEFAULT_STAGE_MAX_TOKENS,
    temperature: opts.temperature ?? 0,
    seed: opts.seed,
    signal: opts.signal,
    onToken: (t) => onText(t.text),
    ...(stop ? { stop } : {}),
  });
  const first = result.completions[0];
  return { text: first?.text ?? '', tokens: first?.tokens.length ?? 0 };
}

/**
 * Timeouts after which a generated implementation is run on no further test. A sample that loops
 * on its input usually loops on every input (on HumanEval/20 one ran into the 5 s limit on 6 of 8
 * tests, twice each: most of that function's 83 s in the sandbox); two tell a loop from one slow input.
 */
export const IMPLEMENTATION_MAX_TIMEOUTS = 2;

/** Most implementations sampled again in a repair round (one batch). */
export const MAX_REPAIRS = 3;

/**
 * The examples that set implementations aside, each with what the first of them to fail it did,
 * for the repair prompt: only usable examples (ones the user's function or an implementation
 * passes), as agreesWithExamples counts them.
 */
function exampleFailuresText(
  examples: GeneratedTest[],
  implementations: Map<string, { status: VerdictStatus; output?: string; message?: string }>[],
  onImplementations: VerdictStatus[][],
  onUser: VerdictStatus[],
): string {
  const lines: string[] = [];
  examples.forEach((t, e) => {
    const usable = onUser[e] === 'passed' || onImplementations.some((row) => row[e] === 'passed');
    const k = onImplementations.findIndex((row) => row[e] !== 'passed');
    if (!usable || k < 0) return;
    const v = implementations[k].get(t.name);
    const said = (v?.output ?? v?.message ?? v?.status ?? '').trim().split('\n')[0].slice(0, 200);
    lines.push(`${t.assertion?.line ?? t.source}${said ? `\n  (the attempt: ${said})` : ''}`);
  });
  return lines.join('\n');
}

/** A code block's closing fence on its own line: where a code answer is complete. */
export const CLOSING_FENCE = '\n```\n';

/** The text with its last code block closed, when a stop at the closing fence left it open. */
export function closeFence(text: string): string {
  const fences = text.split('```').length - 1;
  return fences % 2 === 1 ? `${text.trimEnd()}\n\`\`\`` : text;
}

/** The docstring examples the user's function is shown failing, with what it did (CLI and panel). */
export function failedExamples(run: FiveStageRun): { example: string; output?: string }[] {
  const ex = run.examples;
  if (!ex?.failsConfirmed) return [];
  return ex.tests.flatMap((example, e) =>
    ex.failsConfirmed![e] ? [{ example, ...(ex.userOutput?.[e] ? { output: ex.userOutput[e] } : {}) }] : [],
  );
}

/** How the test writer wrote, in words (CLI and panel). */
export function testWritingText(w: FiveStageRun['testWriting']): string {
  if (w.mode === 'free') return `free text, parsed — ${w.fallbackReason}`;
  const grammar =
    w.assertionGrammar === null ? '' : `, ${w.assertionGrammar === 'lines' ? 'line' : 'expression'} grammar`;
  return `assertion-lines plan (${w.planMode}${grammar})`;
}
