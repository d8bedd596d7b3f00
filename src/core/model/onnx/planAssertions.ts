/**
 * An assertion segment on the local engine: the character automaton of assertionLines.ts checks
 * each candidate token's text, so only tokens that keep the lines valid are sampled.
 */
import { AssertionAutomaton } from '../assertionLines';
import type { AssertionLines, SegmentResult } from '../plan';
import { assertionsResult } from '../planInterpreter';
import { selectAllowed } from '../sampling';
import type { RowContext } from './planRow';

/**
 * Samples lines under the assertion grammar: every token must keep the text inside it; a line
 * that repeats an earlier one is dropped (a second repeat ends the segment), and a line that
 * runs past its token budget is dropped and ends the segment.
 */
export async function writeAssertions(row: RowContext, i: number, s: AssertionLines): Promise<SegmentResult> {
  const texts = row.model.tokenTexts();
  const eos = row.model.eosTokenIds;
  const auto = new AssertionAutomaton(s);
  await row.cursor.logits();
  /** Where each fed token of the segment ends, in cursor tokens and in characters of `auto.text`. */
  const marks = [{ length: row.cursor.fedLength, end: 0 }];
  let emitted = 0;
  let dropped = 0;
  let repeats = 0;
  let finishReason: SegmentResult['finishReason'] = 'stop';
  const dropLine = () => {
    const at = auto.lineStart;
    while (marks.length > 1 && marks[marks.length - 1].end > at) marks.pop();
    const mark = marks[marks.length - 1];
    row.cursor.rewind(mark.length);
    row.cursor.queueText(auto.text.slice(mark.end, at));
    auto.dropLine();
    marks.push({ length: row.cursor.length, end: at });
    dropped++;
  };
  const accepts = (id: number) => {
    if (eos.has(id)) return auto.canEnd();
    const t = texts[id];
    if (!t || t.includes('\uFFFD')) return false;
    return auto.clone().feed(t) !== 'reject';
  };
  for (;;) {
    const logits = await row.cursor.logits();
    const steered = row.cursor.history.apply(logits);
    let token = selectAllowed(steered, row.params, row.random, accepts);
    // The repetition ban must not leave the grammar without a way on.
    if (token === undefined && steered !== logits)
      token = selectAllowed(logits, row.params, row.random, accepts);
    if (token === undefined) {
      if (auto.line !== '') dropLine();
      break;
    }
    if (eos.has(token)) {
      auto.end();
      finishReason = 'eos';
      break;
    }
    if (auto.feed(texts[token]) === 'duplicate') {
      // A repeated line is dropped; a second one means the model has nothing new to say.
      dropLine();
      if (++repeats >= 2) break;
      continue;
    }
    row.cursor.queueToken(token);
    marks.push({ length: row.cursor.length, end: auto.text.length });
    // The rest of a line opening is fed at once rather than sampled token by token.
    const forced = auto.forcedContinuation();
    if (forced && auto.feed(forced) === 'ok') {
      row.cursor.queueText(forced);
      marks.push({ length: row.cursor.length, end: auto.text.length });
    }
    if (auto.lineStart > emitted) {
      row.emit(i, auto.text.slice(emitted, auto.lineStart), token);
      emitted = auto.lineStart;
    }
    if (auto.ended) break;
    const lineTokens = marks.filter((m) => m.end > auto.lineStart).length;
    if (lineTokens >= s.maxTokensPerLine) {
      dropLine();
      finishReason = 'length';
      break;
    }
  }
  row.emit(i, auto.text.slice(emitted));
  return assertionsResult(s, auto, dropped, finishReason);
}
