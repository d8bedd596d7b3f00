import type { ModelBackend } from '../model/types';
import { extractTests, codeBlocks, type GeneratedTest } from './extractTests';
import type { CodeLanguage, FoundFunction } from './functions';
import {
  scoreSuite,
  type DualVerdict,
  type ReferenceMode,
  type SuiteScores,
  type VerdictStatus,
} from './rewards';
import { fillTemplate, loadStageDefinitions, type StageDefinition } from './stages';

/** Runs an accumulated suite against one implementation (the sandbox, in production). */
export type SuiteRunner = (request: {
  language: CodeLanguage;
  /** The module under test; tests reach the function by name. */
  code: string;
  tests: GeneratedTest[];
  signal?: AbortSignal;
}) => Promise<{
  verdicts: { name: string; status: VerdictStatus; output?: string; message?: string }[];
  isolation?: string;
}>;

export interface StageResult {
  stage: StageDefinition;
  reasoning: string;
  testWriterOutput: string;
  tests: GeneratedTest[];
  ms: number;
}

export type FiveStageEvent =
  | { type: 'stage-start'; stage: number; role: 'generator' | 'test-writer' }
  | { type: 'token'; stage: number; role: 'generator' | 'test-writer'; text: string }
  | { type: 'stage-done'; result: StageResult }
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
  accumulatedSuite: GeneratedTest[];
  verdicts: (DualVerdict & { userOutput?: string; generatedOutput?: string })[];
  /** Null when the suite was not executed. */
  scores: SuiteScores | null;
  referenceMode: ReferenceMode;
  isolation?: string;
  startedAt: string;
  totalMs: number;
}

export interface FiveStageOptions {
  model: ModelBackend;
  /** The user's function and the whole file it lives in (the module its tests import). */
  target: FoundFunction;
  fileSource: string;
  file?: string;
  /** Runs the suite in the sandbox; absent (e.g. an untrusted workspace) means generate without executing. */
  runSuite?: SuiteRunner;
  referenceMode?: ReferenceMode;
  maxTokens?: number;
  temperature?: number;
  seed?: number;
  signal?: AbortSignal;
  onEvent?: (event: FiveStageEvent) => void;
  stages?: StageDefinition[];
}

const FRAMEWORK: Record<CodeLanguage, string> = {
  python: 'pytest',
  javascript: "node:test (test() from 'node:test', assert from 'node:assert/strict')",
  typescript: "node:test (test() from 'node:test', assert from 'node:assert/strict')",
  tsx: "node:test (test() from 'node:test', assert from 'node:assert/strict')",
};

const LANGUAGE_NAME: Record<CodeLanguage, string> = {
  python: 'Python',
  javascript: 'JavaScript',
  typescript: 'TypeScript',
  tsx: 'TypeScript',
};

/** The specification the generator reasons from: signature and documentation, not the body. */
export function specOf(fn: FoundFunction): string {
  return [
    fn.signature,
    fn.docstring
      ? `Documentation: ${fn.docstring}`
      : 'No documentation: infer the intent from the name and parameters.',
  ].join('\n');
}

/**
 * The five-stage chain: at each stage the generator writes that stage's reasoning (seeing the
 * stages before) and the test writer adds tests with the stage's focus. Tests accumulate; the whole
 * accumulated suite then runs against the user's function and the stage-5 code.
 */
export async function runFiveStages(opts: FiveStageOptions): Promise<FiveStageRun> {
  const started = Date.now();
  const stages = opts.stages ?? loadStageDefinitions();
  const { model, target, signal } = opts;
  const emit = opts.onEvent ?? (() => undefined);
  const values = {
    spec: specOf(target),
    language: LANGUAGE_NAME[target.language],
    framework: FRAMEWORK[target.language],
    function_name: target.name,
  };
  const results: StageResult[] = [];
  const accumulated: GeneratedTest[] = [];
  const taken = new Set<string>();
  for (const stage of stages) {
    signal?.throwIfAborted();
    const t0 = Date.now();
    const previous =
      results.map((r) => `### ${r.stage.name}\n${r.reasoning.trim()}`).join('\n\n') || '(none yet)';
    emit({ type: 'stage-start', stage: stage.id, role: 'generator' });
    const reasoning = await complete(
      model,
      fillTemplate(stage.generatorPrompt, { ...values, previous }),
      opts,
      (text) => emit({ type: 'token', stage: stage.id, role: 'generator', text }),
    );
    emit({ type: 'stage-start', stage: stage.id, role: 'test-writer' });
    const testWriterOutput = await complete(
      model,
      fillTemplate(stage.testWriterPrompt, {
        ...values,
        previous,
        stage_output: reasoning.trim(),
        focus: stage.testFocus,
      }),
      opts,
      (text) => emit({ type: 'token', stage: stage.id, role: 'test-writer', text }),
    );
    const tests = await extractTests(testWriterOutput, target.language, stage.id, taken);
    accumulated.push(...tests);
    const result: StageResult = { stage, reasoning, testWriterOutput, tests, ms: Date.now() - t0 };
    results.push(result);
    emit({ type: 'stage-done', result });
  }

  const generatedCode = codeBlocks(results[results.length - 1]?.reasoning ?? '')[0]?.trim() ?? '';
  const referenceMode = opts.referenceMode ?? 'agreement';
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
    accumulatedSuite: accumulated,
    referenceMode,
    startedAt: new Date(started).toISOString(),
  };
  if (!opts.runSuite) {
    const run: FiveStageRun = { ...base, verdicts: [], scores: null, totalMs: Date.now() - started };
    emit({ type: 'done', run });
    return run;
  }
  emit({ type: 'running-suite', against: 'user', tests: accumulated.length });
  const onUser = await opts.runSuite({
    language: target.language,
    code: opts.fileSource,
    tests: accumulated,
    signal,
  });
  emit({ type: 'running-suite', against: 'generated', tests: accumulated.length });
  const onGenerated = await opts.runSuite({
    language: target.language,
    code: generatedCode,
    tests: accumulated,
    signal,
  });
  const byName = (list: typeof onUser.verdicts) => new Map(list.map((v) => [v.name, v]));
  const u = byName(onUser.verdicts);
  const g = byName(onGenerated.verdicts);
  const verdicts = accumulated.map((t) => ({
    name: t.name,
    stage: t.stage,
    onUser: u.get(t.name)?.status ?? 'error',
    onGenerated: g.get(t.name)?.status ?? 'error',
    userOutput: u.get(t.name)?.output ?? u.get(t.name)?.message,
    generatedOutput: g.get(t.name)?.output ?? g.get(t.name)?.message,
  }));
  const run: FiveStageRun = {
    ...base,
    verdicts,
    scores: scoreSuite(verdicts, referenceMode),
    isolation: onUser.isolation,
    totalMs: Date.now() - started,
  };
  emit({ type: 'done', run });
  return run;
}

async function complete(
  model: ModelBackend,
  prompt: string,
  opts: FiveStageOptions,
  onText: (t: string) => void,
): Promise<string> {
  const result = await model.generate([{ role: 'user', content: prompt }], {
    maxTokens: opts.maxTokens ?? 256,
    temperature: opts.temperature ?? 0,
    seed: opts.seed,
    signal: opts.signal,
    onToken: (t) => onText(t.text),
  });
  return result.completions[0]?.text ?? '';
}
