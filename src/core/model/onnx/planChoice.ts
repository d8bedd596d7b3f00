/**
 * A choice segment on the local engine: each option is scored from the same point (one forward
 * pass per option of more than one token, rewinding the cache in between), the distribution is
 * renormalised over the options, and the chosen option's tokens stay in (or go back into) the cache.
 */
import type { Choice, PlanSegment, SegmentResult } from '../plan';
import { choiceResult, choiceTerminator, pickOption } from '../planInterpreter';
import { logSumExp } from '../sampling';
import type { RowContext } from './planRow';

/**
 * Scores every option from the choice point and takes one (the most probable at temperature 0,
 * else drawn from the options' distribution). Returns how many characters of the next forced
 * text were fed with the option (its terminator).
 */
export async function chooseOption(
  row: RowContext,
  i: number,
  s: Choice,
  next: PlanSegment | undefined,
): Promise<{ result: SegmentResult; fedOfNext: number }> {
  const space = row.cursor.takeTrailingSpace();
  const logits = await row.cursor.logits();
  const point = row.cursor.mark();
  const terminator = choiceTerminator(s, next);
  const seqs = s.options.map((o) => row.model.encode(space + o + terminator));
  const extends_ = (long: number[], short: number[]) =>
    long.length > short.length && short.every((t, k) => long[k] === t);
  const lse0 = logSumExp(logits);
  const logprobs: number[] = [];
  let inCache = -1;
  for (let k = 0; k < seqs.length; k++) {
    const ids = seqs[k];
    const longer = seqs.filter((other) => extends_(other, ids));
    let lp = logits[ids[0]] - lse0;
    if (ids.length > 1 || longer.length > 0) {
      row.cursor.rewindKeepingLogits(point);
      const rows = await row.cursor.feed(ids);
      inCache = k;
      for (let j = 1; j < ids.length; j++) lp += rows[j - 1][ids[j]] - logSumExp(rows[j - 1]);
      const last = rows[rows.length - 1];
      if (longer.length > 0) {
        // The option means exactly its text: the mass of going on into a longer option is not its own.
        const lse = logSumExp(last);
        const branch = new Set(longer.map((other) => other[ids.length]));
        let away = 0;
        for (const t of branch) away += Math.exp(last[t] - lse);
        lp += Math.log1p(-Math.min(away, 1 - 1e-12));
      }
    }
    logprobs.push(lp);
  }
  const total = logSumExp(logprobs);
  const probabilities = logprobs.map((lp) => Math.exp(lp - total));
  const chosen = pickOption(probabilities, row.params.temperature, row.random);
  // The cache holds the option scored last; any other is fed again from the choice point.
  if (inCache !== chosen) {
    row.cursor.rewindKeepingLogits(point);
    for (const id of seqs[chosen]) row.cursor.queueToken(id);
  }
  row.emit(i, s.options[chosen]);
  return { result: choiceResult(s, chosen, probabilities, Math.exp(total)), fedOfNext: terminator.length };
}
