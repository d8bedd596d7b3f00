/**
 * The test writer of one stage. Where the backend can run plans, its answer is an assertion-lines
 * plan: one single assertion on the function under test per line, at most the stage's budget of
 * lines, no line repeated, so it can neither ramble nor loop until its token limit. Where it
 * cannot, the model writes freely. Either way the output goes through `parseAssertionLines`
 * (`testsFromStage`) before anything reaches the sandbox: a syntax-invalid line never does, a test
 * already in the suite is not admitted again, and the stage adds at most its budget of tests.
 */
import type { PlanSegment } from '../model/plan';
import { segmentNamed } from '../model/plan';
import type { ChatMessage, FinishReason, ModelBackend, TokenEvent } from '../model/types';
import type { RejectedLine } from './assertions';
import type { GeneratedTest } from './extractTests';
import type { CodeLanguage } from './functions';
import { assertionLanguage, testsFromStage } from './stageTests';

export interface StageTestRequest {
  model: ModelBackend;
  /** The conversation whose last message is the test writer's task. */
  messages: ChatMessage[];
  target: { name: string; language: CodeLanguage; signature?: string; kind?: string; docstring?: string };
  stage: number;
  /** Most tests this stage may add to the suite. */
  budget: number;
  /** Write the tests as an assertion-lines plan (the backend must support plans). */
  constrained: boolean;
  /** Budget of a free answer, in tokens. */
  maxTokens: number;
  /** Budget of one assertion line of a plan, in tokens. */
  maxTokensPerLine: number;
  temperature?: number;
  seed?: number;
  signal?: AbortSignal;
  onText?: (text: string) => void;
  /** Keys of the tests already in the suite (updated with the admitted ones). */
  seen: Set<string>;
  /** Test names already used (updated likewise). */
  taken: Set<string>;
}

export interface StageTestWriting {
  output: string;
  constrained: boolean;
  /** `length`: the writer ran into its token limit. */
  finishReason: FinishReason;
  /** Lines the plan left out because they repeated an earlier one (constrained only). */
  repeatsDropped: number;
  tests: GeneratedTest[];
  rejected: RejectedLine[];
}

export function assertionPlan(
  target: StageTestRequest['target'],
  budget: number,
  maxTokensPerLine: number,
): PlanSegment[] {
  return [
    {
      kind: 'assertions',
      name: 'tests',
      language: assertionLanguage(target.language),
      functionName: target.name,
      maxLines: budget,
      maxTokensPerLine,
    },
  ];
}

export async function writeStageTests(r: StageTestRequest): Promise<StageTestWriting> {
  const input = r.messages;
  const sampling = {
    temperature: r.temperature ?? 0,
    seed: r.seed,
    signal: r.signal,
    onToken: (t: TokenEvent) => r.onText?.(t.text),
  };
  let output: string;
  let finishReason: FinishReason;
  let repeatsDropped = 0;
  if (r.constrained) {
    const result = await r.model.generatePlan(
      input,
      assertionPlan(r.target, r.budget, r.maxTokensPerLine),
      sampling,
    );
    const completion = result.completions[0];
    const segment = completion && segmentNamed(completion, 'tests');
    output = segment?.text ?? completion?.text ?? '';
    finishReason = segment?.finishReason ?? 'stop';
    repeatsDropped = segment?.dropped ?? 0;
  } else {
    // Nothing reads the test writer's log-probabilities.
    const result = await r.model.generate(input, { ...sampling, maxTokens: r.maxTokens, logprobs: false });
    output = result.completions[0]?.text ?? '';
    finishReason = result.completions[0]?.finishReason ?? 'stop';
  }
  const { tests, rejected } = await testsFromStage(output, r.target, r.stage, r.seen, r.taken, r.budget);
  return { output, constrained: r.constrained, finishReason, repeatsDropped, tests, rejected };
}
