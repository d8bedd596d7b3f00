import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { resourcePath } from '../resources';

/** The prompt files of the prove flow, by name (without `.md`), found in `prompts/prove/`. */
export const PROMPT_NAMES = [
  'generator',
  'refine',
  'verifier',
  'verifier-olympiad',
  'meta-verifier',
  'step-judge',
  'step-verdict',
] as const;
/**
 * Prompts only "Check My Proof" uses. Kept apart from PROMPT_NAMES, whose digest evaluations record,
 * so that adding them leaves the settings of saved prove evaluations unchanged.
 */
export const CHECK_PROMPT_NAMES = ['meta-verifier-check'] as const;
export type PromptName = (typeof PROMPT_NAMES)[number] | (typeof CHECK_PROMPT_NAMES)[number];

export interface PromptTemplate {
  name: PromptName;
  /** The file the template was read from, so that errors and run documents can name it. */
  file: string;
  /** `key: value` lines of the optional front matter (between `---` lines at the top). */
  meta: Record<string, string>;
  body: string;
}

/** The folder that ships the default prove prompts. */
export function defaultPromptDir(): string {
  return resourcePath('prompts', 'prove');
}

/**
 * Loads one prompt template. A file of the same name in `overrideDir` wins over the shipped one,
 * so a user can change one prompt without copying the others.
 */
export function loadPrompt(name: PromptName, overrideDir?: string): PromptTemplate {
  const candidates = [
    overrideDir && path.join(overrideDir, `${name}.md`),
    path.join(defaultPromptDir(), `${name}.md`),
  ];
  const file = candidates.find((f): f is string => !!f && fs.existsSync(f));
  if (!file) {
    throw new Error(`Prompt "${name}.md" not found in ${candidates.filter(Boolean).join(' or ')}.`);
  }
  return parsePromptFile(name, file, fs.readFileSync(file, 'utf8'));
}

export function parsePromptFile(name: PromptName, file: string, text: string): PromptTemplate {
  const normalized = text.replace(/\r\n/g, '\n');
  const meta: Record<string, string> = {};
  let body = normalized;
  const front = /^---\n([\s\S]*?)\n---\n/.exec(normalized);
  if (front) {
    for (const line of front[1].split('\n')) {
      // The value is trimmed apart: a lazy value followed by optional spaces backtracks.
      const m = /^\s*([\w-]+)\s*:(.*)$/.exec(line);
      if (m) meta[m[1]] = m[2].trim();
    }
    body = normalized.slice(front[0].length);
  }
  return { name, file, meta, body: body.trim() };
}

/**
 * Fills `{{variable}}` placeholders. A placeholder without a value is an error naming the file,
 * because a silently empty problem or proof would make every later score meaningless.
 */
export function renderPrompt(template: PromptTemplate, values: Record<string, string>): string {
  return template.body.replace(/\{\{\s*(\w+)\s*\}\}/g, (_whole, key: string) => {
    const value = values[key];
    if (value === undefined) {
      throw new Error(
        `Prompt ${template.file} uses {{${key}}}, which the prove flow does not provide (it provides: ${Object.keys(values).join(', ')}).`,
      );
    }
    return value;
  });
}

/**
 * A short digest of the named templates as they would be loaded now. Evaluations record it with
 * their settings, so that a resumed run never mixes answers written under two versions of a prompt.
 */
export function promptsDigest(names: readonly PromptName[], overrideDir?: string): string {
  const hash = createHash('sha256');
  for (const name of names) hash.update(`${name}\n${loadPrompt(name, overrideDir).body}\n`);
  return hash.digest('hex').slice(0, 16);
}

/**
 * The prompt names a user's prompt folder overrides. A folder that does not exist, or holds none of
 * the prove prompts, is an error: silently falling back to the shipped prompts would make a run
 * (or an evaluation) look like it measured the user's prompts when it did not.
 */
export function promptOverrides(dir: string): PromptName[] {
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory())
    throw new Error(`The prompt folder ${dir} does not exist.`);
  const names = PROMPT_NAMES.filter((name) => fs.existsSync(path.join(dir, `${name}.md`)));
  if (!names.length)
    throw new Error(
      `The prompt folder ${dir} holds none of the prove prompts (${PROMPT_NAMES.map((n) => `${n}.md`).join(', ')}).`,
    );
  return names;
}
