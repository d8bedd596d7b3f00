import * as fs from 'node:fs';
import { fillTemplate } from '../text/template';
import { resourcePath } from '../resources';

/** A practice prompt (prompts/practice/<name>.md) with its placeholders filled. */
export function practicePrompt(name: string, values: Record<string, string>): string {
  return fillTemplate(fs.readFileSync(resourcePath('prompts', 'practice', `${name}.md`), 'utf8'), values);
}
