import * as fs from 'node:fs';
import { z } from 'zod';
import { resourcePath } from '../resources';

/** One stage of the five-stage reasoning chain; definitions are data in prompts/code/stages.json. */
export const StageDefinitionSchema = z.object({
  id: z.number().int().min(1),
  key: z.string().min(1),
  name: z.string().min(1),
  purpose: z.string(),
  testFocus: z.string(),
  generatorPrompt: z.string().min(1),
  testWriterPrompt: z.string().min(1),
  /** Most tests the stage's test writer may add to the suite ({{test_budget}} in its prompt). */
  testBudget: z.number().int().min(1).max(20).default(3),
});
export type StageDefinition = z.infer<typeof StageDefinitionSchema>;

const StageFileSchema = z.object({ version: z.literal(1), stages: z.array(StageDefinitionSchema).length(5) });

export function loadStageDefinitions(
  file = resourcePath('prompts', 'code', 'stages.json'),
): StageDefinition[] {
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
  return stages;
}

/** Fills `{{name}}` placeholders; an unknown placeholder is left as it is so a typo shows. */
export function fillTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (whole, key: string) => (key in values ? values[key] : whole));
}
