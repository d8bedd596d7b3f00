/**
 * A numeric reading of a LaTeX math expression: `2\sqrt{2}`, `\frac{11+9a}{20}`, `\cot x`,
 * `(1+i)^2`, `1.5\times10^{3}`. Parsing yields a function of the expression's variables, so two
 * expressions can be compared by evaluating both at the same points. Untrusted text: parsing
 * returns null on anything it does not understand, and never throws.
 */
import * as C from './complex';
import type { Complex } from './complex';

export type Env = ReadonlyMap<string, Complex>;

export interface ParsedExpr {
  evaluate(env: Env): Complex;
  /** Variable names the expression uses (`x`, `a_1`). */
  variables: Set<string>;
}

type Node = (env: Env) => Complex;

const FUNCTIONS: Record<string, (a: Complex) => Complex> = {
  sin: C.sin,
  cos: C.cos,
  tan: (a) => C.div(C.sin(a), C.cos(a)),
  cot: (a) => C.div(C.cos(a), C.sin(a)),
  sec: (a) => C.div(C.ONE, C.cos(a)),
  csc: (a) => C.div(C.ONE, C.sin(a)),
  arcsin: C.realOnly(Math.asin),
  arccos: C.realOnly(Math.acos),
  arctan: C.realOnly(Math.atan),
  sinh: C.realOnly(Math.sinh),
  cosh: C.realOnly(Math.cosh),
  tanh: C.realOnly(Math.tanh),
  ln: C.log,
  log: C.log,
  exp: C.exp,
};

const CONSTANTS: Record<string, Complex> = {
  pi: C.complex(Math.PI),
  infty: C.complex(Infinity),
  infinity: C.complex(Infinity),
};

const MULTIPLY = new Set(['cdot', 'times', 'ast']);

class ParseFailure extends Error {}

class Parser {
  private pos = 0;
  readonly variables = new Set<string>();

  constructor(private readonly src: string) {}

  parse(): Node {
    const node = this.expr();
    this.space();
    if (this.pos < this.src.length) this.fail();
    return node;
  }

  private fail(): never {
    throw new ParseFailure(`cannot read "${this.src.slice(this.pos, this.pos + 12)}"`);
  }

  private space(): void {
    while (this.pos < this.src.length && /\s/.test(this.src[this.pos])) this.pos++;
  }

  private peek(): string {
    this.space();
    return this.src[this.pos] ?? '';
  }

  /** The command at the cursor (`\frac` → "frac"), without consuming it. */
  private command(): string | null {
    this.space();
    if (this.src[this.pos] !== '\\') return null;
    const m = /^\\([a-zA-Z]+|.)/.exec(this.src.slice(this.pos));
    return m ? m[1] : null;
  }

  private take(text: string): boolean {
    this.space();
    if (this.src.startsWith(text, this.pos)) {
      this.pos += text.length;
      return true;
    }
    return false;
  }

  private expect(text: string): void {
    if (!this.take(text)) this.fail();
  }

  private expr(): Node {
    let left = this.term();
    for (;;) {
      if (this.take('+')) {
        const l = left;
        const r = this.term();
        left = (env) => C.add(l(env), r(env));
      } else if (this.peek() === '-') {
        this.pos++;
        const l = left;
        const r = this.term();
        left = (env) => C.sub(l(env), r(env));
      } else return left;
    }
  }

  private term(): Node {
    let left = this.unary();
    for (;;) {
      const cmd = this.command();
      let op: 'mul' | 'div' | null = null;
      if (this.take('*') || (cmd && MULTIPLY.has(cmd) && this.take(`\\${cmd}`))) op = 'mul';
      else if (this.take('/') || (cmd === 'div' && this.take('\\div'))) op = 'div';
      else if (this.startsFactor()) op = 'mul'; // implicit product: 2x, 3\sqrt{2}, (a+5)(b+2)
      if (!op) return left;
      const l = left;
      const r = op === 'div' ? this.unary() : this.power();
      left = op === 'mul' ? (env) => C.mul(l(env), r(env)) : (env) => C.div(l(env), r(env));
    }
  }

  private startsFactor(): boolean {
    const c = this.peek();
    if (/[0-9.a-zA-Z({]/.test(c)) return true;
    const cmd = this.command();
    return cmd !== null && (cmd in FUNCTIONS || cmd in CONSTANTS || cmd === 'frac' || cmd === 'sqrt');
  }

  private unary(): Node {
    if (this.take('+')) return this.unary();
    if (this.peek() === '-') {
      this.pos++;
      const inner = this.unary();
      return (env) => C.neg(inner(env));
    }
    return this.power();
  }

  private power(): Node {
    let base = this.primary();
    for (;;) {
      if (this.take('^')) {
        const b = base;
        const e = this.exponent();
        base = (env) => C.pow(b(env), e(env));
      } else if (this.take('!')) {
        const b = base;
        base = (env) => C.factorial(b(env));
      } else return base;
    }
  }

  /** `^2`, `^{-3}`, `^x`, `^\pi`: a braced group or one character/command, as LaTeX reads it. */
  private exponent(): Node {
    if (this.peek() === '-') {
      this.pos++;
      const inner = this.exponent();
      return (env) => C.neg(inner(env));
    }
    return this.argument();
  }

  /** A macro argument: `{…}`, or a single digit, letter or command (`\frac12`, `\sqrt2`). */
  private argument(): Node {
    const c = this.peek();
    if (c === '{') return this.group('{', '}');
    if (/[0-9]/.test(c)) {
      this.pos++;
      const v = C.complex(Number(c));
      return () => v;
    }
    if (/[a-zA-Z]/.test(c)) return this.variable();
    if (c === '\\') return this.primary();
    this.fail();
  }

  private group(open: string, close: string): Node {
    this.expect(open);
    const inner = this.expr();
    this.expect(close);
    return inner;
  }

  private variable(): Node {
    let name = this.src[this.pos++];
    // Subscripted names (a_1, x_{10}) are one variable.
    if (this.src[this.pos] === '_') {
      const m = /^_(\{[a-zA-Z0-9]+\}|[a-zA-Z0-9])/.exec(this.src.slice(this.pos));
      if (!m) this.fail();
      name += `_${m[1].replace(/[{}]/g, '')}`;
      this.pos += m[0].length;
    }
    if (name === 'i') return () => C.I;
    this.variables.add(name);
    return (env) => env.get(name) ?? C.NAN;
  }

  private number(): Node {
    const m = /^(\d+\.?\d*|\.\d+)/.exec(this.src.slice(this.pos));
    if (!m) this.fail();
    this.pos += m[0].length;
    // A base subscript (52_8) is a numeral in another base, not a number to evaluate.
    if (this.src[this.pos] === '_') this.fail();
    const v = C.complex(Number(m[0]));
    return () => v;
  }

  private primary(): Node {
    const c = this.peek();
    if (/[0-9.]/.test(c)) return this.number();
    if (/[a-zA-Z]/.test(c)) return this.variable();
    if (c === '(') return this.group('(', ')');
    if (c === '[') return this.group('[', ']');
    if (c === '{') return this.group('{', '}');
    if (c === '|') {
      const inner = this.group('|', '|');
      return (env) => C.complex(C.abs(inner(env)));
    }
    const cmd = this.command();
    if (cmd === null) this.fail();
    this.pos += cmd.length + 1;
    if (cmd === 'frac') {
      const num = this.argument();
      const den = this.argument();
      return (env) => C.div(num(env), den(env));
    }
    if (cmd === 'sqrt') {
      let index: Node | null = null;
      if (this.peek() === '[') index = this.group('[', ']');
      const radicand = this.argument();
      const n = index;
      return n ? (env) => C.root(radicand(env), n(env)) : (env) => C.sqrt(radicand(env));
    }
    if (cmd in CONSTANTS) {
      const v = CONSTANTS[cmd];
      return () => v;
    }
    if (cmd in FUNCTIONS) return this.application(FUNCTIONS[cmd]);
    this.fail();
  }

  /** `\sin x`, `\sin(2x)`, `\sin^2 x`, `\cot 2x`: the argument is the implicit product that follows. */
  private application(f: (a: Complex) => Complex): Node {
    let power: Node | null = null;
    if (this.take('^')) power = this.exponent();
    let arg: Node;
    if (this.peek() === '(') arg = this.group('(', ')');
    else {
      arg = this.power();
      while (/[0-9a-zA-Z]/.test(this.peek()) || this.command() === 'pi') {
        const l = arg;
        const r = this.power();
        arg = (env) => C.mul(l(env), r(env));
      }
    }
    const p = power;
    return p ? (env) => C.pow(f(arg(env)), p(env)) : (env) => f(arg(env));
  }
}

/** Parses `src` (already normalised: no `\left`, `\dfrac`, units or spacing commands); null if unreadable. */
export function parseExpr(src: string): ParsedExpr | null {
  if (src.trim() === '') return null;
  const parser = new Parser(src);
  try {
    const node = parser.parse();
    return {
      variables: parser.variables,
      evaluate: (env) => {
        try {
          return node(env);
        } catch {
          return C.NAN;
        }
      },
    };
  } catch {
    return null;
  }
}
