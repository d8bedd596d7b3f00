/**
 * Teacher-forced scoring passes kept on disk: the per-token log-probabilities of a text under one
 * model, one JSON line per text. Refitting a head, or evaluating it again, reads them back and
 * runs no model; an interrupted extraction resumes where it stopped.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { GeneratedToken } from '../model/types';
import { stableHash } from './split';

interface Entry {
  model: string;
  key: string;
  /** [text, log-probability] per token. */
  tokens: [string, number | null][];
}

export class TokenJournal {
  private readonly entries = new Map<string, GeneratedToken[]>();
  /** The models whose entries were read. */
  readonly models = new Set<string>();
  /**
   * Reads `file`, keeping only `model`'s entries; with no model given, all of them (to learn, before
   * loading any model, whether every text needed is already there, and under which model).
   */
  constructor(
    readonly file: string,
    private readonly model?: string,
  ) {
    if (!fs.existsSync(file)) return;
    for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      try {
        const e = JSON.parse(line) as Entry;
        if ((model === undefined || e.model === model) && Array.isArray(e.tokens)) {
          this.models.add(e.model);
          this.entries.set(
            e.key,
            e.tokens.map(([text, logprob]) => ({ text, logprob })),
          );
        }
      } catch {
        // An unfinished last line: that text is scored again.
      }
    }
  }

  /** The key of a prompt and text: the same pair always lands on the same entry. */
  static keyOf(prompt: string, text: string): string {
    return `${stableHash(prompt).toString(16)}-${stableHash(text).toString(16)}-${text.length}`;
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): GeneratedToken[] | undefined {
    return this.entries.get(key);
  }

  put(key: string, tokens: readonly GeneratedToken[]): void {
    if (this.model === undefined) throw new Error('a journal read for every model cannot be written to.');
    this.entries.set(key, [...tokens]);
    const entry: Entry = { model: this.model, key, tokens: tokens.map((t) => [t.text, t.logprob]) };
    fs.mkdirSync(path.dirname(path.resolve(this.file)), { recursive: true });
    fs.appendFileSync(this.file, JSON.stringify(entry) + '\n');
  }
}
