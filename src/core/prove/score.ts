/**
 * The one reader of boxed scores, shared by every role that writes one: the generator's
 * self-evaluation, the verifier and the meta-verifier. Models wrap the box in LaTeX delimiters
 * (`\(\boxed{1}\)`, `$\boxed{1}$`, `\[\boxed{1}\]`, a stray `\boxed{1}\)`) or Markdown emphasis
 * (`**\boxed{1}**`); none of that changes the score, so all of it is accepted here, by every role
 * alike. Nothing here throws, and nothing here uses a regular expression on the whole text: model
 * output can be long and adversarial, and every scan below is linear.
 */
import { boxedNumber, findBoxed, type BoxedValue } from './boxed';
import { truncate } from '../text/truncate';

export const CLOSING_SENTENCE = 'Based on my evaluation, the final overall score should be:';

/**
 * Where a free analysis (self-evaluation or judge) ends: at its own box, or where it starts the
 * closing sentence that the plan then writes in full. The sentence's opening words also catch a
 * model that varies the rest of it.
 */
export const ANALYSIS_STOPS = ['\\boxed', 'Based on my evaluation', 'final overall score should be'];

/** The scales a score is written on: 0 / 0.5 / 1, or olympiad points 0–7. */
export type ScoreScale = 'unit' | 'olympiad';

export const UNIT_SCORES = [0, 0.5, 1] as const;

/**
 * Olympiad points (0–7) to the design's 0 / 0.5 / 1 scale:
 *   7     → 1    a complete and rigorous proof;
 *   1 – 6 → 0.5  credit for a correct but imperfect or incomplete argument (the middle grade);
 *   0     → 0    no meaningful progress or a wrong argument.
 * Anything but a whole number from 0 to 7 is not a grade (null).
 */
export function olympiadToUnit(points: number): number | null {
  if (!Number.isInteger(points) || points < 0 || points > 7) return null;
  if (points === 7) return 1;
  return points === 0 ? 0 : 0.5;
}

/** The options a scale allows, as the model writes them inside the box. */
export function scaleOptions(scale: ScoreScale): string[] {
  return scale === 'olympiad' ? ['0', '1', '2', '3', '4', '5', '6', '7'] : ['0', '0.5', '1'];
}

/** A raw score on its scale mapped to [0, 1]; null when the scale does not allow it. */
export function toUnit(raw: number, scale: ScoreScale): number | null {
  if (scale === 'olympiad') return olympiadToUnit(raw);
  return UNIT_SCORES.find((s) => Math.abs(s - raw) < 1e-9) ?? null;
}

export interface ScoreReading {
  /** The number in the box that was read, on the scale's own terms (points for olympiad). */
  rawScore: number | null;
  /** The score on [0, 1]; null when there is no usable score. */
  score: number | null;
  /** The box that was read (offsets into the text after `<think>` blocks are removed). */
  box: BoxedValue | null;
  /** How many boxes the text holds. */
  boxes: number;
  /** Whether the box read is the one right after the closing sentence. */
  closing: boolean;
  /** Whether only delimiters, emphasis and punctuation follow the box read. */
  endsWithScore: boolean;
  /** The text before the verdict (closing sentence or box): the reasons given for it. */
  reasons: string;
  problems: string[];
}

// Delimiters that may surround a box without changing it.
const WRAPPERS = ['\\(', '\\)', '\\[', '\\]', '\\displaystyle'];
const FILLER = new Set([' ', '\t', '\n', '\r', '$', '*', '`', '.', ':']);

/** Whether `s` holds nothing but LaTeX math delimiters, emphasis, spaces and a full stop. */
export function onlyDelimiters(s: string): boolean {
  let rest = s;
  for (const w of WRAPPERS) rest = rest.split(w).join('');
  for (const c of rest) if (!FILLER.has(c)) return false;
  return true;
}

/**
 * Reads the verdict of a text that ends "…the final overall score should be: \boxed{X}" (with any
 * `<think>` block already removed: see `stripThinking`). The box
 * read is the one right after the last closing sentence (delimiters between them allowed);
 * without that, the last box (judges restate their verdict at the end). Every deviation is named
 * in `problems`; the caller decides which of them matter for its role.
 */
export function readScore(output: string, scale: ScoreScale): ScoreReading {
  const text = typeof output === 'string' ? output : '';
  const problems: string[] = [];
  const boxes = findBoxed(text);
  const closingAt = text.lastIndexOf(CLOSING_SENTENCE);
  const closingEnd = closingAt < 0 ? -1 : closingAt + CLOSING_SENTENCE.length;
  const afterClosing = closingEnd < 0 ? undefined : boxes.find((b) => b.start >= closingEnd);
  const closing = afterClosing !== undefined && onlyDelimiters(text.slice(closingEnd, afterClosing.start));
  const box = closing ? afterClosing : (boxes[boxes.length - 1] ?? null);
  const reasonsEnd = closingAt >= 0 ? closingAt : (box?.start ?? text.length);
  const reading: ScoreReading = {
    rawScore: null,
    score: null,
    box,
    boxes: boxes.length,
    closing,
    endsWithScore: box !== null && onlyDelimiters(text.slice(box.end)),
    reasons: text.slice(0, reasonsEnd).trim(),
    problems,
  };
  if (!box) {
    problems.push('no \\boxed{} score');
    return reading;
  }
  if (boxes.length > 1)
    problems.push(`${boxes.length} \\boxed{} values; the ${closing ? 'closing' : 'last'} one was read`);
  const raw = boxedNumber(box.content);
  if (raw === null) {
    problems.push(`\\boxed{${truncate(box.content, 40)}} is not a number`);
    return reading;
  }
  reading.rawScore = raw;
  reading.score = toUnit(raw, scale);
  if (reading.score === null)
    problems.push(
      scale === 'olympiad'
        ? `${raw} is not a whole number of points from 0 to 7`
        : `${raw} is not one of 0, 0.5, 1`,
    );
  return reading;
}

/** Words of the reasons before a verdict, without the role's opening sentence. */
export function reasonWords(reasons: string, opening?: string): number {
  const body = opening && reasons.startsWith(opening) ? reasons.slice(opening.length) : reasons;
  return body.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;
}

/**
 * A verdict counts as reasoned when at least this many words of analysis precede it: a judge that
 * writes only its closing line has given a score, not a judgement anyone can check.
 */
export const MIN_REASON_WORDS = 5;
