/**
 * Final-answer equivalence for MATH-style problems: is a model's boxed answer the reference
 * answer, written differently? Answers are read into a small structure (scalars, text, ordered
 * tuples and intervals, unordered sets and answer lists, unions, matrices, equations) and
 * compared structurally; scalars are compared by value (exactly, over ℂ, at several points when
 * they have variables), so `\frac{1}{2}`, `1/2`, `0.5` and `\dfrac12` agree while `0.333` and
 * `\frac13` do not. Model output is untrusted: nothing here throws.
 */
import * as C from './complex';
import { formKey, normalizeAnswer, parseForm, textKey, type AnswerForm } from './answerForms';
import { parseExpr } from './latexExpr';

export {
  boxedContents,
  finalBoxedAnswer,
  normalizeAnswer,
  parseAnswer,
  type AnswerForm,
} from './answerForms';

/** Whether two answers (raw model or reference text) say the same thing. Symmetric. */
export function answersEquivalent(a: string, b: string): boolean {
  try {
    const x = normalizeAnswer(a);
    const y = normalizeAnswer(b);
    if (x === '' || y === '') return false;
    if (x.replace(/\s/g, '') === y.replace(/\s/g, '')) return true;
    return formsEquivalent(parseForm(x), parseForm(y));
  } catch {
    return false;
  }
}

export function formsEquivalent(a: AnswerForm, b: AnswerForm): boolean {
  if (a.kind === 'text' || b.kind === 'text') return formKey(a) === formKey(b);
  if (a.kind === 'scalar' && b.kind === 'scalar') return scalarsEqual(a, b);
  // A one-element list or set is its element.
  if (a.kind === 'seq' && a.items.length === 1) return formsEquivalent(a.items[0], b);
  if (b.kind === 'seq' && b.items.length === 1) return formsEquivalent(a, b.items[0]);
  if (a.kind === 'seq' && b.kind === 'seq') {
    // "3, \frac{\pi}{2}" for "(3, \frac{\pi}{2})": a bare list read in its written order is the
    // point or tuple with those entries (models often drop the parentheses the problem asks for).
    if (isBareList(a) && isTuple(b)) return pairwise(a.items, b.items);
    if (isBareList(b) && isTuple(a)) return pairwise(a.items, b.items);
    if (a.ordered !== b.ordered) return false;
    if (a.ordered) return a.open === b.open && a.close === b.close && pairwise(a.items, b.items);
    return sameMultiset(a.items, b.items);
  }
  if (a.kind === 'union' && b.kind === 'union') return sameMultiset(a.parts, b.parts);
  if (a.kind === 'matrix' && b.kind === 'matrix')
    return a.rows.length === b.rows.length && a.rows.every((r, i) => pairwise(r, b.rows[i]));
  // A column or row vector written as a tuple: (−18, −49, 96) for a pmatrix of those entries.
  if (a.kind === 'matrix' && b.kind === 'seq') return vectorMatches(a, b);
  if (b.kind === 'matrix' && a.kind === 'seq') return vectorMatches(b, a);
  if (a.kind === 'equation' && b.kind === 'equation')
    return (
      (formsEquivalent(a.left, b.left) && formsEquivalent(a.right, b.right)) ||
      (formsEquivalent(a.left, b.right) && formsEquivalent(a.right, b.left))
    );
  return formKey(a) === formKey(b);
}

type Seq = Extract<AnswerForm, { kind: 'seq' }>;
const isBareList = (s: Seq) => !s.ordered && s.open === '' && s.items.length > 1;
const isTuple = (s: Seq) => s.ordered && s.open === '(' && s.close === ')';

function vectorMatches(m: Extract<AnswerForm, { kind: 'matrix' }>, t: Extract<AnswerForm, { kind: 'seq' }>) {
  if (!t.ordered || t.open !== '(' || t.close !== ')') return false;
  const entries = m.rows.every((r) => r.length === 1)
    ? m.rows.map((r) => r[0])
    : m.rows.length === 1
      ? m.rows[0]
      : null;
  return entries !== null && pairwise(entries, t.items);
}

function pairwise(a: AnswerForm[], b: AnswerForm[]): boolean {
  return a.length === b.length && a.every((x, i) => formsEquivalent(x, b[i]));
}

/** Whether `b` is a re-ordering of `a` under equivalence (a perfect matching, found by backtracking). */
function sameMultiset(a: AnswerForm[], b: AnswerForm[]): boolean {
  if (a.length !== b.length) return false;
  const used = new Array<boolean>(b.length).fill(false);
  const match = (i: number): boolean => {
    if (i === a.length) return true;
    for (let j = 0; j < b.length; j++) {
      if (used[j] || !formsEquivalent(a[i], b[j])) continue;
      used[j] = true;
      if (match(i + 1)) return true;
      used[j] = false;
    }
    return false;
  };
  return match(0);
}

const BASE_NUMERAL = /^([0-9A-Za-z]+)_\{?(\d+)\}?$/;

function scalarsEqual(
  a: Extract<AnswerForm, { kind: 'scalar' }>,
  b: Extract<AnswerForm, { kind: 'scalar' }>,
): boolean {
  const sa = a.src.replace(/\s/g, '');
  const sb = b.src.replace(/\s/g, '');
  if (sa === sb) return true;
  // 52_8 and 52: the same digits, the base being the one the problem asked for.
  const na = BASE_NUMERAL.exec(sa);
  const nb = BASE_NUMERAL.exec(sb);
  if (na || nb) return (na ? na[1] : sa) === (nb ? nb[1] : sb) && (!na || !nb || na[2] === nb[2]);

  const ea = parseExpr(a.src);
  const eb = parseExpr(b.src);
  if (!ea || !eb) return textKey(a.src) === textKey(b.src);
  const names = [...new Set([...ea.variables, ...eb.variables])];
  // Degrees convert to radians only when a side says degrees: 30° = π/6, but 30 ≠ π/6.
  const scaleA = a.degrees && !b.degrees ? [1, Math.PI / 180] : [1];
  const scaleB = b.degrees && !a.degrees ? [1, Math.PI / 180] : [1];
  for (const ka of scaleA) {
    for (const kb of scaleB) {
      if (sameValues(ea.evaluate, eb.evaluate, names, ka, kb)) return true;
    }
  }
  return false;
}

function sameValues(
  fa: (env: Map<string, C.Complex>) => C.Complex,
  fb: (env: Map<string, C.Complex>) => C.Complex,
  names: string[],
  ka: number,
  kb: number,
): boolean {
  let compared = 0;
  for (const env of samplePoints(names)) {
    const va = C.mul(fa(env), C.complex(ka));
    const vb = C.mul(fb(env), C.complex(kb));
    const nanA = Number.isNaN(va.re) || Number.isNaN(va.im);
    const nanB = Number.isNaN(vb.re) || Number.isNaN(vb.im);
    if (nanA && nanB) continue; // outside both domains: no evidence either way
    if (nanA !== nanB || !C.close(va, vb)) return false;
    compared++;
  }
  return compared > 0;
}

/**
 * Points at which expressions with variables are compared: fixed pseudo-random values per
 * variable (so the check is repeatable), away from 0, 1, 2 and other values where different
 * polynomials often agree; one point negative so that |x| and x differ.
 */
function samplePoints(names: string[]): Map<string, C.Complex>[] {
  if (names.length === 0) return [new Map()];
  const points: Map<string, C.Complex>[] = [];
  for (let k = 0; k < 4; k++) {
    const env = new Map<string, C.Complex>();
    names.forEach((name) => {
      let h = 2166136261 ^ k;
      for (const ch of name) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
      const unit = ((h >>> 0) % 1_000_003) / 1_000_003;
      const value = 0.31 + 2.17 * unit;
      env.set(name, C.complex(k === 3 ? -value : value));
    });
    points.push(env);
  }
  return points;
}
