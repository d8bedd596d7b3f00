/**
 * A light lexical check of an expression typed character by character, outside strings: two
 * operands may not follow each other without an operator or keyword between them ("x y",
 * "f(1) 2", prose), a lone `=` stands only where the language allows it (Python keyword
 * arguments), and an expression may not end on an operator or keyword. Not a parser: it stops
 * the shapes that small models write instead of code, cheaply enough to check every candidate token.
 */

const WORD_CHAR = /[A-Za-z0-9_$]/;
const NUMBER = /^[0-9]+$/;

export interface ExpressionLanguage {
  /** Words that may stand between two operands (`and`, `in`, `typeof`). */
  keywords: readonly string[];
  /** Whether a single `=` (not part of `==`, `<=`, ...) may stand at this bracket depth. */
  loneEquals(depth: number): boolean;
  /** What may follow a lone `=` where it may not stand alone (`=` for `==`; `>` for JS arrows). */
  afterLoneEquals: string;
}

export const PYTHON_EXPRESSIONS: ExpressionLanguage = {
  keywords: ['and', 'or', 'not', 'is', 'in', 'if', 'else', 'for', 'lambda', 'async', 'await'],
  loneEquals: (depth) => depth >= 1,
  afterLoneEquals: '=',
};

export const JS_EXPRESSIONS: ExpressionLanguage = {
  keywords: ['typeof', 'instanceof', 'in', 'of', 'new', 'void', 'delete', 'await'],
  loneEquals: () => false,
  afterLoneEquals: '=>',
};

export class OperandTracker {
  /** The last item was an operand (a name, a number, a closing bracket or string). */
  private operand = false;
  /** Whitespace since the last item. */
  private spaced = false;
  /** The word being typed. */
  private word = '';
  /** The word follows an operand, so it must be a keyword. */
  private mustBeKeyword = false;
  private equalsOpen = false;
  private prev = '';
  /** The last character that was not whitespace. */
  private lastSignificant = '';

  constructor(private readonly language: ExpressionLanguage) {}

  clone(): OperandTracker {
    return Object.assign(Object.create(OperandTracker.prototype) as OperandTracker, this);
  }

  /** One character outside strings, at bracket depth `depth` (after it is applied). */
  feed(ch: string, depth: number): boolean {
    const ok = this.step(ch, depth);
    this.prev = ch;
    if (ch !== ' ' && ch !== '\t') this.lastSignificant = ch;
    return ok;
  }

  /** A string literal opens: the word before it (a prefix such as `f` or `r`) ends. */
  openString(): boolean {
    const ok = this.endWord();
    this.prev = '"';
    this.lastSignificant = '"';
    return ok;
  }

  closeString(): void {
    this.operand = true;
    this.spaced = false;
  }

  /** Whether the expression may end here. */
  canEnd(): boolean {
    if (this.equalsOpen) return false;
    if (this.word) return !this.mustBeKeyword && !this.language.keywords.includes(this.word);
    return this.operand;
  }

  /** Whether a bracket may close here: after an operand, or right after an opener, a comma or a colon (slices). */
  canClose(): boolean {
    return this.canEnd() || (!this.word && !this.equalsOpen && '([{,:'.includes(this.lastSignificant));
  }

  private step(ch: string, depth: number): boolean {
    if (this.equalsOpen) {
      this.equalsOpen = false;
      if (!this.language.afterLoneEquals.includes(ch)) return false;
      this.operand = false;
      return true;
    }
    if (WORD_CHAR.test(ch) || (ch === '.' && NUMBER.test(this.word))) return this.wordChar(ch);
    if (!this.endWord()) return false;
    if (ch === ' ' || ch === '\t') {
      this.spaced = true;
      return true;
    }
    this.spaced = false;
    if (ch === ')' || ch === ']' || ch === '}') {
      this.operand = true;
      return true;
    }
    if (ch === '=' && !'=!<>'.includes(this.prev) && !this.language.loneEquals(depth)) this.equalsOpen = true;
    this.operand = false;
    return true;
  }

  private wordChar(ch: string): boolean {
    if (this.word) {
      this.word += ch;
      return !this.mustBeKeyword || this.language.keywords.some((k) => k.startsWith(this.word));
    }
    if (this.operand) {
      // Directly after a closing bracket or string ("f(1)x") nothing may start a word.
      if (!this.spaced) return false;
      this.mustBeKeyword = true;
      if (!this.language.keywords.some((k) => k.startsWith(ch))) return false;
    }
    this.word = ch;
    this.spaced = false;
    return true;
  }

  private endWord(): boolean {
    if (!this.word) return true;
    const keyword = this.language.keywords.includes(this.word);
    if (this.mustBeKeyword && !keyword) return false;
    this.operand = !keyword;
    this.word = '';
    this.mustBeKeyword = false;
    return true;
  }
}
