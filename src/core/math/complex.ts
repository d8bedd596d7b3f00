/**
 * Complex arithmetic for evaluating answers numerically. MATH answers use `i` as the imaginary
 * unit (`6+9i`, `1-12i`) and square roots of negatives appear in intermediate forms, so the
 * evaluator works over ℂ; a real answer is simply one with a zero imaginary part.
 */
export interface Complex {
  re: number;
  im: number;
}

export const complex = (re: number, im = 0): Complex => ({ re, im });
export const ZERO = complex(0);
export const ONE = complex(1);
export const I = complex(0, 1);
export const NAN = complex(NaN, NaN);

export const add = (a: Complex, b: Complex): Complex => complex(a.re + b.re, a.im + b.im);
export const sub = (a: Complex, b: Complex): Complex => complex(a.re - b.re, a.im - b.im);
export const neg = (a: Complex): Complex => complex(-a.re, -a.im);
export const mul = (a: Complex, b: Complex): Complex =>
  // Real operands keep exact real arithmetic (∞ · 0 terms would otherwise produce NaN).
  a.im === 0 && b.im === 0
    ? complex(a.re * b.re)
    : complex(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);

export function div(a: Complex, b: Complex): Complex {
  if (a.im === 0 && b.im === 0) return complex(a.re / b.re);
  const d = b.re * b.re + b.im * b.im;
  return complex((a.re * b.re + a.im * b.im) / d, (a.im * b.re - a.re * b.im) / d);
}

export const abs = (a: Complex): number => Math.hypot(a.re, a.im);

export function exp(a: Complex): Complex {
  const m = Math.exp(a.re);
  return a.im === 0 ? complex(m) : complex(m * Math.cos(a.im), m * Math.sin(a.im));
}

export function log(a: Complex): Complex {
  if (a.im === 0 && a.re > 0) return complex(Math.log(a.re));
  return complex(Math.log(abs(a)), Math.atan2(a.im, a.re));
}

/** Powers: whole exponents by repeated squaring (exact for `(1+i)^2`), the rest by exp(b·log a). */
export function pow(a: Complex, b: Complex): Complex {
  if (b.im === 0 && Number.isInteger(b.re) && Math.abs(b.re) <= 64) {
    let result = ONE;
    let base = a;
    let n = Math.abs(b.re);
    while (n > 0) {
      if (n & 1) result = mul(result, base);
      base = mul(base, base);
      n >>= 1;
    }
    return b.re < 0 ? div(ONE, result) : result;
  }
  if (a.im === 0 && b.im === 0 && (a.re >= 0 || Number.isInteger(b.re))) return complex(a.re ** b.re);
  if (a.re === 0 && a.im === 0) return ZERO;
  return exp(mul(b, log(a)));
}

/** Principal square root; exact on perfect squares of reals (√16 = 4, √−4 = 2i). */
export function sqrt(a: Complex): Complex {
  if (a.im === 0) return a.re >= 0 ? complex(Math.sqrt(a.re)) : complex(0, Math.sqrt(-a.re));
  const m = abs(a);
  const re = Math.sqrt((m + a.re) / 2);
  const im = Math.sign(a.im) * Math.sqrt((m - a.re) / 2);
  return complex(re, im);
}

/** The real n-th root of a real number where one exists (∛−8 = −2), else the principal root. */
export function root(a: Complex, n: Complex): Complex {
  if (a.im === 0 && n.im === 0 && Number.isInteger(n.re) && n.re % 2 === 1 && a.re < 0)
    return complex(-(Math.abs(a.re) ** (1 / n.re)));
  if (a.im === 0 && n.im === 0 && a.re >= 0) return complex(a.re ** (1 / n.re));
  return pow(a, div(ONE, n));
}

export function sin(a: Complex): Complex {
  if (a.im === 0) return complex(Math.sin(a.re));
  return complex(Math.sin(a.re) * Math.cosh(a.im), Math.cos(a.re) * Math.sinh(a.im));
}

export function cos(a: Complex): Complex {
  if (a.im === 0) return complex(Math.cos(a.re));
  return complex(Math.cos(a.re) * Math.cosh(a.im), -Math.sin(a.re) * Math.sinh(a.im));
}

/** Real-only functions (inverse trigonometric, hyperbolic): NaN off the real line. */
export function realOnly(f: (x: number) => number): (a: Complex) => Complex {
  return (a) => (a.im === 0 ? complex(f(a.re)) : NAN);
}

export function factorial(a: Complex): Complex {
  if (a.im !== 0 || !Number.isInteger(a.re) || a.re < 0 || a.re > 170) return NAN;
  let r = 1;
  for (let k = 2; k <= a.re; k++) r *= k;
  return complex(r);
}

/**
 * Whether two values are the same number: equal infinities, or within a relative 1e-9 (floating
 * error of exact forms such as 2√2 vs √8) — far tighter than any rounding a person would write,
 * so 0.333 is not 1/3.
 */
export function close(a: Complex, b: Complex): boolean {
  for (const [x, y] of [
    [a.re, b.re],
    [a.im, b.im],
  ]) {
    if (Number.isNaN(x) || Number.isNaN(y)) return false;
    if (!Number.isFinite(x) || !Number.isFinite(y)) {
      if (x !== y) return false;
      continue;
    }
  }
  if (!Number.isFinite(a.re) || !Number.isFinite(b.re)) return a.im === b.im || close1(a.im, b.im);
  const scale = Math.max(abs(a), abs(b), 1e-300);
  return abs(sub(a, b)) <= 1e-9 * scale + 1e-13;
}

function close1(x: number, y: number): boolean {
  return Math.abs(x - y) <= 1e-9 * Math.max(Math.abs(x), Math.abs(y)) + 1e-13;
}
