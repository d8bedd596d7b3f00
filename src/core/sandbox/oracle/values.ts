/**
 * Values that came back from a sandbox, decoded strictly (anything malformed is opaque), and
 * compared in the host with each language's own equality. An opaque value never equals anything.
 */

export type Value =
  | { t: 'none' | 'ellipsis' | 'undefined' | 'null' | 'hole' }
  | { t: 'bool'; v: boolean }
  | { t: 'int' | 'bigint'; v: bigint }
  | { t: 'float' | 'number'; v: number }
  | { t: 'complex'; re: number; im: number }
  | { t: 'str' | 'string'; v: string }
  | { t: 'bytes'; v: string }
  | { t: 'list' | 'tuple' | 'set' | 'frozenset' | 'array'; v: Value[] }
  | { t: 'dict' | 'map'; v: [Value, Value][] }
  | { t: 'object'; proto: 'Object' | 'null'; v: [string, Value][] }
  | { t: 'date'; v: number }
  | { t: 'opaque'; type: string };

const opaque = (type: string): Value => ({ t: 'opaque', type });

function float(v: unknown): number | undefined {
  if (typeof v !== 'string') return undefined;
  if (v === 'nan' || v === 'NaN') return NaN;
  if (v === 'inf' || v === 'Infinity') return Infinity;
  if (v === '-inf' || v === '-Infinity') return -Infinity;
  const n = Number(v);
  return v.trim() !== '' && !Number.isNaN(n) ? n : undefined;
}

function pyInt(v: unknown): bigint | undefined {
  if (typeof v !== 'string' || !/^-?[0-9a-f]+$/.test(v)) return undefined;
  const neg = v.startsWith('-');
  const magnitude = BigInt(`0x${neg ? v.slice(1) : v}`);
  return neg ? -magnitude : magnitude;
}

/** Decodes one type-tagged value; whatever does not fit the encoding exactly becomes opaque. */
export function decodeValue(raw: unknown, depth = 0): Value {
  if (typeof raw !== 'object' || raw === null || depth > 250) return opaque('malformed');
  const r = raw as Record<string, unknown>;
  const list = (x: unknown) => (Array.isArray(x) ? x.map((e) => decodeValue(e, depth + 1)) : undefined);
  const pairs = (x: unknown) =>
    Array.isArray(x) && x.every((p) => Array.isArray(p) && p.length === 2)
      ? (x as unknown[][]).map(
          (p) => [decodeValue(p[0], depth + 1), decodeValue(p[1], depth + 1)] as [Value, Value],
        )
      : undefined;
  switch (r.t) {
    case 'none':
    case 'ellipsis':
    case 'undefined':
    case 'null':
    case 'hole':
      return { t: r.t };
    case 'bool':
      return typeof r.v === 'boolean' ? { t: 'bool', v: r.v } : opaque('malformed');
    case 'int': {
      const v = pyInt(r.v);
      return v === undefined ? opaque('malformed') : { t: 'int', v };
    }
    case 'bigint':
      return typeof r.v === 'string' && /^-?\d+$/.test(r.v)
        ? { t: 'bigint', v: BigInt(r.v) }
        : opaque('malformed');
    case 'float':
    case 'number': {
      const v = r.v === '-0' ? -0 : float(r.v);
      return v === undefined ? opaque('malformed') : { t: r.t, v };
    }
    case 'complex': {
      const re = float(r.re);
      const im = float(r.im);
      return re === undefined || im === undefined ? opaque('malformed') : { t: 'complex', re, im };
    }
    case 'str':
    case 'string':
      return typeof r.v === 'string' ? { t: r.t, v: r.v } : opaque('malformed');
    case 'bytes':
      return typeof r.v === 'string' && /^([0-9a-f]{2})*$/.test(r.v)
        ? { t: 'bytes', v: r.v }
        : opaque('malformed');
    case 'list':
    case 'tuple':
    case 'set':
    case 'frozenset':
    case 'array': {
      const v = list(r.v);
      return v ? { t: r.t, v } : opaque('malformed');
    }
    case 'dict':
    case 'map': {
      const v = pairs(r.v);
      return v ? { t: r.t, v } : opaque('malformed');
    }
    case 'object': {
      const ok =
        (r.proto === 'Object' || r.proto === 'null') &&
        Array.isArray(r.v) &&
        r.v.every((p) => Array.isArray(p) && p.length === 2 && typeof p[0] === 'string');
      if (!ok) return opaque('malformed');
      const v = (r.v as [string, unknown][]).map(
        ([k, x]) => [k, decodeValue(x, depth + 1)] as [string, Value],
      );
      return { t: 'object', proto: r.proto as 'Object' | 'null', v };
    }
    case 'date': {
      const v = float(r.v);
      return v === undefined ? opaque('malformed') : { t: 'date', v };
    }
    case 'opaque':
      return opaque(typeof r.type === 'string' ? r.type.slice(0, 200) : 'unknown');
    default:
      return opaque('malformed');
  }
}

// ---- Python: ==, truth value, closeness --------------------------------------------------------

type PyNumber =
  { kind: 'int'; v: bigint } | { kind: 'float'; v: number } | { kind: 'complex'; re: number; im: number };

function pyNumber(x: Value): PyNumber | undefined {
  if (x.t === 'bool') return { kind: 'int', v: x.v ? 1n : 0n };
  if (x.t === 'int') return { kind: 'int', v: x.v };
  if (x.t === 'float') return { kind: 'float', v: x.v };
  if (x.t === 'complex') return { kind: 'complex', re: x.re, im: x.im };
  return undefined;
}

/** int == float exactly, as Python compares them (no rounding of the int). */
function intEqualsFloat(i: bigint, f: number): boolean {
  return Number.isFinite(f) && Number.isInteger(f) && BigInt(f) === i;
}

function realEqual(
  a: PyNumber & { kind: 'int' | 'float' },
  b: PyNumber & { kind: 'int' | 'float' },
): boolean {
  if (a.kind === 'int' && b.kind === 'int') return a.v === b.v;
  if (a.kind === 'float' && b.kind === 'float') return a.v === b.v;
  return a.kind === 'int' ? intEqualsFloat(a.v, b.v as number) : intEqualsFloat(b.v as bigint, a.v);
}

function numbersEqual(a: PyNumber, b: PyNumber): boolean {
  if (a.kind === 'complex' || b.kind === 'complex') {
    const re = (n: PyNumber) => (n.kind === 'complex' ? { kind: 'float' as const, v: n.re } : n);
    const im = (n: PyNumber) => (n.kind === 'complex' ? n.im : 0);
    return im(a) === im(b) && realEqual(re(a), re(b));
  }
  return realEqual(a, b);
}

/** Unordered matching of two collections under an equality (each element used once). */
function sameMembers<T>(a: T[], b: T[], eq: (x: T, y: T) => boolean): boolean {
  if (a.length !== b.length) return false;
  const used = new Array<boolean>(b.length).fill(false);
  return a.every((x) => {
    const j = b.findIndex((y, k) => !used[k] && eq(x, y));
    if (j < 0) return false;
    used[j] = true;
    return true;
  });
}

/** Python's `==` on plain values: 1 == 1.0 == True, tuple ≠ list, dicts and sets unordered. */
export function pyEqual(a: Value, b: Value): boolean {
  if (a.t === 'opaque' || b.t === 'opaque') return false;
  const na = pyNumber(a);
  const nb = pyNumber(b);
  if (na || nb) return !!na && !!nb && numbersEqual(na, nb);
  const setLike = (x: Value) => x.t === 'set' || x.t === 'frozenset';
  if (setLike(a) && setLike(b)) return sameMembers((a as { v: Value[] }).v, (b as { v: Value[] }).v, pyEqual);
  if (a.t !== b.t) return false;
  switch (a.t) {
    case 'none':
    case 'ellipsis':
      return true;
    case 'str':
    case 'bytes':
      return a.v === (b as typeof a).v;
    case 'list':
    case 'tuple': {
      const bv = (b as typeof a).v;
      return a.v.length === bv.length && a.v.every((x, i) => pyEqual(x, bv[i]));
    }
    case 'dict': {
      const bv = (b as typeof a).v;
      return sameMembers(a.v, bv, ([k1, v1], [k2, v2]) => pyEqual(k1, k2) && pyEqual(v1, v2));
    }
    default:
      return false;
  }
}

/** Python's truth value of a plain value; undefined for an opaque one (its __bool__ is not trusted). */
export function pyTruthy(x: Value): boolean | undefined {
  switch (x.t) {
    case 'none':
      return false;
    case 'ellipsis':
      return true;
    case 'bool':
      return x.v;
    case 'int':
      return x.v !== 0n;
    case 'float':
      return x.v !== 0;
    case 'complex':
      return x.re !== 0 || x.im !== 0;
    case 'str':
    case 'bytes':
    case 'list':
    case 'tuple':
    case 'set':
    case 'frozenset':
    case 'dict':
      return x.v.length > 0;
    default:
      return undefined;
  }
}

export interface Closeness {
  style: 'approx' | 'isclose';
  rel?: number;
  abs?: number;
}

function asFloat(n: PyNumber): number | undefined {
  return n.kind === 'complex' ? (n.im === 0 ? n.re : undefined) : Number(n.v);
}

function closeNumbers(actual: number, expected: number, c: Closeness): boolean {
  if (actual === expected) return true;
  if (!Number.isFinite(actual) || !Number.isFinite(expected)) return false;
  const diff = Math.abs(actual - expected);
  if (c.style === 'isclose') {
    const rel = c.rel ?? 1e-9;
    const abs = c.abs ?? 0;
    return diff <= Math.max(rel * Math.max(Math.abs(actual), Math.abs(expected)), abs);
  }
  // pytest.approx: an absolute tolerance given alone is the whole tolerance.
  const abs = c.abs ?? 1e-12;
  if (c.rel === undefined && c.abs !== undefined) return diff <= abs;
  return diff <= Math.max((c.rel ?? 1e-6) * Math.abs(expected), abs);
}

/** pytest.approx (numbers, and sequences/dicts of them elementwise) or math.isclose (numbers only). */
export function pyClose(actual: Value, expected: Value, c: Closeness): boolean {
  const na = pyNumber(actual);
  const ne = pyNumber(expected);
  if (na && ne && actual.t !== 'bool' && expected.t !== 'bool') {
    const a = asFloat(na);
    const e = asFloat(ne);
    return a !== undefined && e !== undefined && closeNumbers(a, e, c);
  }
  if (c.style === 'isclose') return false;
  if ((actual.t === 'list' || actual.t === 'tuple') && actual.t === expected.t) {
    const ev = (expected as typeof actual).v;
    return actual.v.length === ev.length && actual.v.every((x, i) => pyClose(x, ev[i], c));
  }
  if (actual.t === 'dict' && expected.t === 'dict') {
    return sameMembers(actual.v, expected.v, ([k1, v1], [k2, v2]) => pyEqual(k1, k2) && pyClose(v1, v2, c));
  }
  return pyEqual(actual, expected);
}

// ---- JavaScript: strict and deep-strict equality, truthiness -----------------------------------

const PRIMITIVES = new Set(['undefined', 'null', 'bool', 'number', 'bigint', 'string']);

function primitiveIs(a: Value, b: Value): boolean {
  if (a.t !== b.t) return false;
  if (a.t === 'undefined' || a.t === 'null') return true;
  return Object.is((a as { v: unknown }).v, (b as { v: unknown }).v);
}

/** assert.strictEqual: Object.is. Objects that came from two processes are never the same object. */
export function jsStrictEqual(a: Value, b: Value): boolean {
  return PRIMITIVES.has(a.t) && PRIMITIVES.has(b.t) && primitiveIs(a, b);
}

/** assert.deepStrictEqual on plain values (prototypes, holes and key sets included). */
export function jsDeepStrictEqual(a: Value, b: Value): boolean {
  if (a.t === 'opaque' || b.t === 'opaque') return false;
  if (PRIMITIVES.has(a.t) || PRIMITIVES.has(b.t) || a.t === 'hole' || b.t === 'hole')
    return a.t === 'hole' ? b.t === 'hole' : primitiveIs(a, b);
  if (a.t !== b.t) return false;
  switch (a.t) {
    case 'array': {
      const bv = (b as typeof a).v;
      return a.v.length === bv.length && a.v.every((x, i) => jsDeepStrictEqual(x, bv[i]));
    }
    case 'object': {
      const bo = b as typeof a;
      return (
        a.proto === bo.proto &&
        sameMembers(a.v, bo.v, ([k1, v1], [k2, v2]) => k1 === k2 && jsDeepStrictEqual(v1, v2))
      );
    }
    case 'map':
      return sameMembers(
        a.v,
        (b as typeof a).v,
        ([k1, v1], [k2, v2]) => jsDeepStrictEqual(k1, k2) && jsDeepStrictEqual(v1, v2),
      );
    case 'set':
      return sameMembers(a.v, (b as typeof a).v, jsDeepStrictEqual);
    case 'date':
      return Object.is(a.v, (b as typeof a).v);
    default:
      return false;
  }
}

/** JavaScript truthiness: every object is truthy, whatever it is (no hook can change that). */
export function jsTruthy(x: Value): boolean {
  switch (x.t) {
    case 'undefined':
    case 'null':
    case 'hole':
      return false;
    case 'bool':
      return x.v;
    case 'number':
      return x.v !== 0 && !Number.isNaN(x.v);
    case 'bigint':
      return x.v !== 0n;
    case 'string':
      return x.v !== '';
    default:
      return true;
  }
}
