import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { z } from 'zod';
import type { ChatMessage } from '../model/types';
import { resourcePath } from '../resources';
import { fillTemplate } from '../text/template';

/** One stage of the five-stage reasoning chain; definitions are data in prompts/code/stages.json. */
export const StageDefinitionSchema = z.object({
  id: z.number().int().min(1),
  key: z.string().min(1),
  name: z.string().min(1),
  purpose: z.string(),
  testFocus: z.string(),
  /** The generator's message at this stage (stage 1's follows the opening). */
  generatorTask: z.string().min(1),
  /** The test writer's message, after this stage's reasoning. */
  testWriterTask: z.string().min(1),
  /** Most tests the stage's test writer may add to the suite ({{test_budget}} in its task). */
  testBudget: z.number().int().min(1).max(20).default(3),
});
export type StageDefinition = z.infer<typeof StageDefinitionSchema>;

const StageFileSchema = z.object({
  version: z.literal(2),
  /** What every conversation opens with: the function and its specification. */
  opening: z.string().min(1),
  stages: z.array(StageDefinitionSchema).length(5),
});

/** The stage definitions and the opening message they share. */
export interface StageChain {
  opening: string;
  stages: StageDefinition[];
}

export function loadStageChain(file = resourcePath('prompts', 'code', 'stages.json')): StageChain {
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`Cannot read the stage definitions in ${file}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  const parsed = StageFileSchema.safeParse(raw);
  if (!parsed.success) {
    throw new Error(
      `The stage definitions in ${file} are invalid: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  }
  const stages = [...parsed.data.stages].sort((a, b) => a.id - b.id);
  stages.forEach((s, i) => {
    if (s.id !== i + 1)
      throw new Error(`Stage ids in ${file} must be 1 to 5 in order; found ${s.id} at position ${i + 1}.`);
  });
  return { opening: parsed.data.opening, stages };
}

/**
 * A short digest of the stage definitions as they would be loaded now. Test evaluations record it,
 * so that a resumed run never mixes functions reasoned under two versions of the prompts.
 */
export function stagesDigest(file?: string): string {
  return chainDigest(loadStageChain(file));
}

/** The digest of stage definitions already loaded (the same as `stagesDigest` of their file). */
export function chainDigest(chain: StageChain): string {
  return createHash('sha256').update(JSON.stringify(chain)).digest('hex').slice(0, 16);
}

/** A stage the generator has answered: its reasoning exactly as written. */
export interface StageTurn {
  stage: StageDefinition;
  reasoning: string;
}

/**
 * The chain as one conversation. The generator's messages for a stage are the opening, each
 * earlier stage's task and answer, then this stage's task; the test writer's are the same up to
 * and including this stage's answer, then its own task. The test writer's branch never returns
 * to the generator, so no test is in the context of the code it judges, and each request's prompt
 * extends the one before it up to its last message: a server's prompt cache reads only that.
 */
export class StageConversation {
  constructor(
    private readonly chain: StageChain,
    private readonly values: Record<string, string>,
  ) {}

  /** What the generator is asked at `stage`, after the answered stages in `done`. */
  generator(done: StageTurn[], stage: StageDefinition): ChatMessage[] {
    return this.ask(done, this.fill(stage.generatorTask, stage));
  }

  /**
   * What the test writer is asked at the last stage of `done` (no reasoning: from the specification
   * alone). A task with `{{existing_tests}}` is shown the suite's tests so far, one per line: each
   * stage's test writer starts a new branch and otherwise cannot know what earlier ones wrote.
   */
  testWriter(
    done: StageTurn[],
    stage: StageDefinition,
    existingTests: readonly string[] = [],
  ): ChatMessage[] {
    const task = fillTemplate(stage.testWriterTask, {
      existing_tests: existingTests.length ? existingTests.join('\n') : '(none yet)',
    });
    return this.ask(done, this.fill(task, stage));
  }

  private ask(done: StageTurn[], task: string): ChatMessage[] {
    const messages: ChatMessage[] = [];
    const user = (content: string) =>
      messages.push({
        role: 'user',
        content:
          messages.length === 0 ? `${fillTemplate(this.chain.opening, this.values)}\n\n${content}` : content,
      });
    for (const turn of done) {
      user(this.fill(turn.stage.generatorTask, turn.stage));
      messages.push({ role: 'assistant', content: turn.reasoning });
    }
    user(task);
    return messages;
  }

  private fill(template: string, stage: StageDefinition): string {
    return fillTemplate(template, {
      ...this.values,
      focus: stage.testFocus,
      test_budget: String(stage.testBudget),
    });
  }
}
