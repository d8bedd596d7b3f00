/**
 * The grammar of an assertion segment as a character automaton: lines that each hold one
 * assertion on the function under test, brackets and quotes balanced before a line may end, no
 * statement separators or line continuations, no line repeated, the segment ended by a blank line
 * or the line limit. A complete line may end with a comment, which is not part of the admitted
 * line: a model that wants to annotate its test (`== []  # empty input`) and may not was pushed
 * into an operator instead (`== [] /testing`), a test that breaks on an undefined name. A decoder
 * checks each candidate token's text against a copy of the automaton, so only tokens that keep the
 * text inside the grammar are chosen.
 */
import { JS_EXPRESSIONS, OperandTracker, PYTHON_EXPRESSIONS } from './operandTracker';
import type { AssertionLines } from './plan';

/** What feeding text did: `duplicate` means a newline would end a line equal to an earlier one. */
export type FeedOutcome = 'ok' | 'reject' | 'duplicate';

const OPENERS: Record<string, string> = { '(': ')', '[': ']', '{': '}' };
const CLOSERS = new Set([')', ']', '}']);

/** The line openings the grammar admits for a language. */
export function assertionPrefixes(spec: Pick<AssertionLines, 'language' | 'functionName'>): string[] {
  const f = spec.functionName;
  if (spec.language === 'python') return [`assert ${f}(`, `assert not ${f}(`];
  return [`assert.deepStrictEqual(${f}(`, `assert.strictEqual(${f}(`];
}

/** Lines compare equal when they differ only in spacing or a trailing semicolon (comments are cut before). */
export function normaliseLine(line: string): string {
  return line
    .replace(/\s+/g, ' ')
    .replace(/\s*;?\s*$/, '')
    .trim();
}

type Phase = 'start' | 'prefix' | 'body' | 'tail' | 'slash' | 'comment';

export class AssertionAutomaton {
  /** Accepted text of the segment so far (dropped lines are cut out). */
  text = '';
  /** Where the current line starts in `text`. */
  lineStart = 0;
  /** Admitted lines, as written. */
  lines: string[] = [];
  ended = false;
  private seen: string[] = [];
  private phase: Phase = 'start';
  private stack = '';
  private quote = '';
  private escaped = false;
  private prev = '';
  /** JavaScript: the outer assert call has its second argument. */
  private hasExpected = false;
  private semicolon = false;
  /** Where the current line's comment starts (its length before the comment), or -1. */
  private commentAt = -1;
  private readonly prefixes: string[];
  private readonly js: boolean;
  private expression: OperandTracker;

  constructor(private readonly spec: Pick<AssertionLines, 'language' | 'functionName' | 'maxLines'>) {
    this.prefixes = assertionPrefixes(spec);
    this.js = spec.language !== 'python';
    this.expression = this.newExpression();
  }

  clone(): AssertionAutomaton {
    const copy = Object.create(AssertionAutomaton.prototype) as AssertionAutomaton;
    Object.assign(copy, this);
    copy.expression = this.expression.clone();
    return copy;
  }

  private newExpression(): OperandTracker {
    return new OperandTracker(this.js ? JS_EXPRESSIONS : PYTHON_EXPRESSIONS);
  }

  /** The current line so far. */
  get line(): string {
    return this.text.slice(this.lineStart);
  }

  /** The current line without its comment: what is admitted. */
  private get code(): string {
    return this.commentAt < 0 ? this.line : this.line.slice(0, this.commentAt).trimEnd();
  }

  /** Whether the segment may end here (EOS): after a blank line, or on a complete new line. */
  canEnd(): boolean {
    if (this.ended) return false;
    if (this.phase === 'start') return this.lines.length > 0;
    return this.lineComplete() && !this.isDuplicate() && this.lines.length < this.spec.maxLines;
  }

  /** Ends the segment; a complete current line is admitted first. */
  end(): void {
    if (this.phase !== 'start' && this.lineComplete()) this.admitLine();
    this.ended = true;
  }

  /** Feeds text character by character; stops at the first character that breaks the grammar. */
  feed(text: string): FeedOutcome {
    for (const ch of text) {
      const outcome = this.feedChar(ch);
      if (outcome !== 'ok') return outcome;
    }
    return 'ok';
  }

  /**
   * Text the grammar leaves no choice about once a line has begun: the rest of the line opening
   * up to where the allowed openings part ways, less any spaces and punctuation it ends with. A
   * decoder feeds it in one pass instead of sampling it token by token. The held-back end is
   * token healing: fed on its own, "(" becomes a lone token that the model's own "([" would have
   * covered, and after it the model wrote `f(1.0, 2.0)` for a function of a list; sampled under
   * the grammar, the model picks "(", "([" or "('" itself.
   */
  forcedContinuation(): string {
    if (this.phase !== 'prefix') return '';
    const rests = this.prefixes.filter((p) => p.startsWith(this.line)).map((p) => p.slice(this.line.length));
    let common = rests[0] ?? '';
    for (const r of rests) while (!r.startsWith(common)) common = common.slice(0, -1);
    return common.replace(/[^\p{L}\p{N}_]+$/u, '');
  }

  /** Cuts the current line out of the text and starts it over. */
  dropLine(): void {
    this.text = this.text.slice(0, this.lineStart);
    this.resetLine();
  }

  private feedChar(ch: string): FeedOutcome {
    if (this.ended) return 'reject';
    if (ch === '\n') return this.newline();
    if (ch === '\r' || (ch < ' ' && ch !== '\t')) return 'reject';
    if (this.phase === 'start' || this.phase === 'prefix') return this.prefixChar(ch);
    if (this.phase === 'comment') return this.accept(ch);
    if (this.phase === 'slash') {
      if (ch !== '/') return 'reject';
      this.phase = 'comment';
      return this.accept(ch);
    }
    if (this.phase === 'tail') {
      if (ch === '/') {
        this.commentAt = this.line.length;
        this.phase = 'slash';
        return this.accept(ch);
      }
      if (ch !== ';' && ch !== ' ') return 'reject';
      if (ch === ';' && this.semicolon) return 'reject';
      if (ch === ';') this.semicolon = true;
      return this.accept(ch);
    }
    return this.bodyChar(ch);
  }

  private newline(): FeedOutcome {
    if (this.phase === 'start') {
      if (this.lines.length === 0) return 'reject';
      this.text += '\n';
      this.ended = true;
      return 'ok';
    }
    if (!this.lineComplete()) return 'reject';
    if (this.isDuplicate()) return 'duplicate';
    this.admitLine();
    this.text += '\n';
    this.lineStart = this.text.length;
    if (this.lines.length >= this.spec.maxLines) this.ended = true;
    return 'ok';
  }

  private prefixChar(ch: string): FeedOutcome {
    const typed = this.line + ch;
    if (!this.prefixes.some((p) => p.startsWith(typed))) return 'reject';
    this.text += ch;
    this.phase = 'prefix';
    if (this.prefixes.includes(typed)) {
      this.phase = 'body';
      // Python: `assert f(` leaves one bracket open; JavaScript: `assert.x(f(` leaves two.
      this.stack = this.js ? '((' : '(';
    }
    return 'ok';
  }

  private bodyChar(ch: string): FeedOutcome {
    if (this.quote) {
      if (this.escaped) this.escaped = false;
      else if (ch === '\\') this.escaped = true;
      else if (ch === this.quote) {
        this.quote = '';
        this.expression.closeString();
      }
      return this.accept(ch);
    }
    if (ch === '"' || ch === "'" || (this.js && ch === '`')) {
      if (!this.expression.openString()) return 'reject';
      this.quote = ch;
      return this.accept(ch);
    }
    // Line continuations, statement separators and a comment inside the expression would let a
    // line say something other than one assertion; a comment after a complete one cannot.
    if (ch === '\\') return 'reject';
    if (!this.js && ch === '#' && this.stack === '' && this.expression.canEnd()) {
      this.commentAt = this.line.length;
      this.phase = 'comment';
      return this.accept(ch);
    }
    if (!this.js && (ch === '#' || ch === ';')) return 'reject';
    if (this.js && this.prev === '/' && (ch === '/' || ch === '*')) return 'reject';
    if (this.js && ch === ';') return 'reject';
    if (ch in OPENERS) {
      if (!this.expression.feed(ch, this.stack.length + 1)) return 'reject';
      this.stack += ch;
      return this.accept(ch);
    }
    if (CLOSERS.has(ch)) {
      const open = this.stack.at(-1);
      if (open === undefined || OPENERS[open] !== ch || !this.expression.canClose()) return 'reject';
      // The assert call needs its expected value before it closes.
      if (this.js && this.stack.length === 1 && !this.hasExpected) return 'reject';
      if (!this.expression.feed(ch, this.stack.length - 1)) return 'reject';
      this.stack = this.stack.slice(0, -1);
      if (this.js && this.stack === '') this.phase = 'tail';
      return this.accept(ch);
    }
    if (!this.expression.feed(ch, this.stack.length)) return 'reject';
    if (this.js && ch === ',' && this.stack.length === 1) this.hasExpected = true;
    return this.accept(ch);
  }

  private accept(ch: string): FeedOutcome {
    this.text += ch;
    this.prev = ch;
    return 'ok';
  }

  private lineComplete(): boolean {
    if (this.phase === 'comment') return true;
    if (this.quote || this.stack !== '') return false;
    return this.js ? this.phase === 'tail' : this.phase === 'body' && this.expression.canEnd();
  }

  private isDuplicate(): boolean {
    return this.seen.includes(normaliseLine(this.code));
  }

  private admitLine(): void {
    // Arrays are replaced, not mutated, so clones made for candidate checks stay independent.
    this.lines = [...this.lines, this.code];
    this.seen = [...this.seen, normaliseLine(this.code)];
    this.resetLine();
  }

  private resetLine(): void {
    this.phase = 'start';
    this.stack = '';
    this.quote = '';
    this.escaped = false;
    this.prev = '';
    this.hasExpected = false;
    this.semicolon = false;
    this.commentAt = -1;
    this.expression = this.newExpression();
    this.lineStart = this.text.length;
  }
}
