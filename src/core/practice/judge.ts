/** Parsing of judge and generator outputs. Model output is untrusted: nothing here throws. */

/** The content of the last `\boxed{...}` (balanced braces), or null. */
export function lastBoxed(text: string): string | null {
  const at = text.lastIndexOf('\\boxed{');
  if (at < 0) return null;
  let depth = 0;
  for (let i = at + '\\boxed'.length; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}') {
      depth--;
      if (depth === 0) return text.slice(at + '\\boxed{'.length, i).trim();
    }
  }
  return null;
}

/** A 0–10 judge score mapped to [0, 1]; null when no valid score is given. */
export function parseJudgeScore(text: string): number | null {
  const boxed = lastBoxed(stripThink(text));
  // `\s*(?:is|:)?\s*` would let two space runs share the same spaces (quadratic backtracking).
  const raw = boxed ?? /score\s*(?:(?:is|:)\s*)?(\d+(?:\.\d+)?)/i.exec(text)?.[1] ?? null;
  if (raw === null) return null;
  const m = /^(\d+(?:\.\d+)?)\s*(?:\/\s*10)?$/.exec(raw.trim());
  if (!m) return null;
  const value = Number(m[1]);
  return value >= 0 && value <= 10 ? value / 10 : null;
}

/** 'A', 'B' or null from a pairwise verdict. */
export function parsePairVerdict(text: string): 'A' | 'B' | null {
  const boxed = lastBoxed(stripThink(text));
  const v = (boxed ?? /answer\s+([AB])\b\s+is\s+better/i.exec(text)?.[1] ?? '').trim().toUpperCase();
  return v === 'A' || v === 'B' ? v : null;
}

/** The problem statement from generator output ("Problem: ..."), or null when there is none. */
export function parseQuestion(text: string): string | null {
  const clean = stripThink(text).trim();
  const m = /Problem\s*:\s*([\s\S]+)/i.exec(clean);
  // `[ \t]*`, not `\s*`: a run of blank lines would otherwise be rescanned from each of them.
  const q = (m ? m[1] : clean).split(/\n[ \t]*(?:Solution|Answer)[ \t]*:/i)[0].trim();
  if (q.length < 10) return null;
  // Without the "Problem:" marker, only text that reads as a task counts as a question.
  if (!m && !/\?|\b(find|compute|calculate|prove|show|determine|solve|what|how|evaluate|simplify)\b/i.test(q))
    return null;
  return q;
}

export function stripThink(text: string): string {
  return text.replace(/<think>[\s\S]*?(<\/think>|$)/g, '');
}
