/**
 * The JavaScript side of the oracle (see pythonHarness.ts for the design): calls.mjs imports the
 * module under test and evaluates the call thunks appended to it; expected.mjs evaluates the
 * expected expressions in a process that never loads the code under test. encode.mjs is a strict,
 * type-tagged encoding of plain values: primitives, arrays, plain objects, Map, Set and Date, read
 * through the intrinsics captured before any other code ran; proxies, getters, class instances
 * and everything else become opaque markers that never equal anything. A thrown value is placed
 * among the realm's error classes by prototype identity, and expected.mjs resolves the class an
 * assert.throws test names in its own clean realm (see pythonHarness.ts).
 */

export const JS_ENCODER = String.raw`import { writeSync } from 'node:fs';
import { types } from 'node:util';

const getProto = Object.getPrototypeOf;
const ownKeys = Reflect.ownKeys;
const describe = Object.getOwnPropertyDescriptor;
const isArray = Array.isArray;
const isProxy = types.isProxy;
const mapEntries = Map.prototype.entries;
const setValues = Set.prototype.values;
const dateTime = Date.prototype.getTime;
const PROTOS = { array: Array.prototype, object: Object.prototype, map: Map.prototype, set: Set.prototype, date: Date.prototype };
const MAX_NODES = 200000;
const MAX_DEPTH = 200;

export class TooLarge extends Error {}

function typeName(x) {
  try {
    const ctor = describe(getProto(x) ?? {}, 'constructor')?.value;
    return typeof ctor === 'function' && typeof describe(ctor, 'name')?.value === 'string' ? describe(ctor, 'name').value : 'object';
  } catch {
    return 'object';
  }
}

function dataValue(x, key) {
  const d = describe(x, key);
  if (!d || !('value' in d)) throw new Opaque();
  return d.value;
}

class Opaque extends Error {}

export function encode(x, budget = { n: 0 }, depth = 0) {
  if (++budget.n > MAX_NODES) throw new TooLarge();
  if (x === undefined) return { t: 'undefined' };
  if (x === null) return { t: 'null' };
  switch (typeof x) {
    case 'boolean':
      return { t: 'bool', v: x };
    case 'number':
      return { t: 'number', v: Object.is(x, -0) ? '-0' : String(x) };
    case 'bigint':
      return { t: 'bigint', v: x.toString() };
    case 'string':
      return { t: 'string', v: x };
    case 'symbol':
      return { t: 'opaque', type: 'symbol' };
    case 'function':
      return { t: 'opaque', type: 'function' };
  }
  if (isProxy(x)) return { t: 'opaque', type: 'Proxy' };
  if (depth >= MAX_DEPTH) return { t: 'opaque', type: 'nested deeper than ' + MAX_DEPTH + ' levels' };
  const proto = getProto(x);
  try {
    if (proto === PROTOS.array && isArray(x)) {
      const length = dataValue(x, 'length');
      const keys = ownKeys(x).filter((k) => k !== 'length');
      const v = [];
      for (let i = 0; i < length; i++) v.push(describe(x, String(i)) ? encode(dataValue(x, String(i)), budget, depth + 1) : { t: 'hole' });
      if (keys.length !== v.filter((e) => e.t !== 'hole').length) return { t: 'opaque', type: 'Array with extra properties' };
      return { t: 'array', v };
    }
    if (proto === PROTOS.object || proto === null) {
      const keys = ownKeys(x);
      if (keys.some((k) => typeof k !== 'string')) return { t: 'opaque', type: 'object with symbol keys' };
      const v = [];
      for (const k of keys) if (describe(x, k).enumerable) v.push([k, encode(dataValue(x, k), budget, depth + 1)]);
      return { t: 'object', proto: proto === null ? 'null' : 'Object', v };
    }
    if (proto === PROTOS.map) {
      const v = [];
      for (const [k, val] of mapEntries.call(x)) v.push([encode(k, budget, depth + 1), encode(val, budget, depth + 1)]);
      return { t: 'map', v };
    }
    if (proto === PROTOS.set) {
      const v = [];
      for (const e of setValues.call(x)) v.push(encode(e, budget, depth + 1));
      return { t: 'set', v };
    }
    if (proto === PROTOS.date) return { t: 'date', v: String(dateTime.call(x)) };
  } catch (e) {
    if (e instanceof TooLarge) throw e;
    return { t: 'opaque', type: 'object with accessors' };
  }
  return { t: 'opaque', type: typeName(x) };
}

// The error classes of this realm, captured when this module loads, before the code under test
// runs (descriptors only, so no getter runs): a thrown value is placed among them by the identity
// of the prototypes on its chain, never by a name a constructor carries.
const BUILTIN_ERRORS = [];
for (const name of Object.getOwnPropertyNames(globalThis)) {
  const ctor = describe(globalThis, name)?.value;
  const proto = typeof ctor === 'function' ? describe(ctor, 'prototype')?.value : undefined;
  if (proto && (proto === Error.prototype || Error.prototype.isPrototypeOf(proto))) BUILTIN_ERRORS.push([proto, name]);
}

function builtinName(proto) {
  for (let k = 0; k < BUILTIN_ERRORS.length; k++) if (BUILTIN_ERRORS[k][0] === proto) return BUILTIN_ERRORS[k][1];
  return undefined;
}

/**
 * A thrown value: its branch, the first built-in error class on its prototype chain (by
 * identity), the constructor names of the code's own classes before it, and its message. The
 * host decides what matches.
 */
export function describeThrown(e) {
  const own = [];
  let branch = null;
  let message = '';
  try {
    if (e !== null && (typeof e === 'object' || typeof e === 'function') && !isProxy(e)) {
      for (let p = getProto(e), n = 0; p && n < 50; p = getProto(p), n++) {
        const builtin = builtinName(p);
        if (builtin) {
          branch = builtin;
          break;
        }
        const ctor = describe(p, 'constructor')?.value;
        const name = typeof ctor === 'function' ? describe(ctor, 'name')?.value : undefined;
        if (typeof name === 'string' && own.length < 20) own[own.length] = name;
      }
      const m = describe(e, 'message')?.value;
      if (typeof m === 'string') message = m.slice(0, 500);
    } else if (typeof e === 'string') message = e.slice(0, 500);
  } catch {
    // A hostile value: what was read so far stands.
  }
  return { type: own[0] ?? branch ?? typeof e, branch, own, message };
}

/**
 * The built-in error classes that are NAME or inherit from it, NAME resolved among this
 * realm's globals; null when NAME is not a built-in error class.
 */
export function builtinSubclasses(name) {
  const base = BUILTIN_ERRORS.find(([, n]) => n === name);
  if (!base) return null;
  return BUILTIN_ERRORS.filter(([p]) => p === base[0] || base[0].isPrototypeOf(p)).map(([, n]) => n).sort();
}

export function sender() {
  return (record) => {
    const data = Buffer.from(JSON.stringify(record) + '\n');
    let offset = 0;
    while (offset < data.length) offset += writeSync(3, data, offset);
  };
}
`;

export const JS_CALLS_HARNESS = String.raw`import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { TooLarge, describeThrown, encode, sender } from './encode.mjs';

const send = sender();
const [inDir, startArg, limitArg, subject] = process.argv.slice(2);
const start = Number(startArg);
const limitMs = Number(limitArg);
const calls = JSON.parse(readFileSync(inDir + '/calls.json', 'utf8'));
const isPromise = (v) => v instanceof Promise && Object.getPrototypeOf(v) === Promise.prototype;
const stdoutWrite = process.stdout.write;
const stderrWrite = process.stderr.write;
let captured = '';
const capture = (chunk) => {
  if (captured.length < 4000) captured += String(chunk).slice(0, 4000 - captured.length);
  return true;
};

try {
  process.stdout.write = process.stderr.write = capture;
  await import(pathToFileURL(inDir + '/' + subject).href);
} catch (e) {
  const d = describeThrown(e);
  send({ load: (d.type + ': ' + d.message).trim() });
  process.exit(0);
}
const thunks = globalThis.__stepwiseCalls;
const TIMED_OUT = {};
for (let i = start; i < calls.length; i++) {
  send({ s: i });
  captured = '';
  let outcome;
  try {
    let value = thunks[i]();
    if (calls[i].awaits && isPromise(value)) {
      let timer;
      const late = new Promise((resolve) => (timer = setTimeout(() => resolve(TIMED_OUT), limitMs)));
      value = await Promise.race([value, late]);
      clearTimeout(timer);
    }
    outcome = value === TIMED_OUT ? { timeout: true } : { r: encode(value) };
  } catch (e) {
    outcome = e instanceof TooLarge ? { big: true } : { x: describeThrown(e) };
  }
  process.stdout.write = stdoutWrite;
  process.stderr.write = stderrWrite;
  send({ ...outcome, i, out: captured });
  process.stdout.write = process.stderr.write = capture;
}
process.exit(0);
`;

export const JS_EXPECTED_HARNESS = String.raw`import { readFileSync } from 'node:fs';
import { TooLarge, builtinSubclasses, encode, sender } from './encode.mjs';

const send = sender();
const [inDir, startArg] = process.argv.slice(2);
const items = JSON.parse(readFileSync(inDir + '/expected.json', 'utf8'));
for (const item of items.slice(Number(startArg))) {
  send({ s: item.i });
  const record = { i: item.i };
  if (item.raises) {
    record.subclasses = Object.fromEntries(item.raises.map((name) => [name, builtinSubclasses(name)]));
    send(record);
    continue;
  }
  try {
    record.expected = encode((0, eval)('(' + item.expected + ')'));
  } catch (e) {
    record.error = e instanceof TooLarge ? 'the expected value is too large to compare' : 'the expected value could not be evaluated: ' + String(e && e.message || e);
  }
  send(record);
}
process.exit(0);
`;

/** The module under test with the call thunks appended, each in its own arrow function. */
export function jsSubject(code: string, calls: { call: string; awaits: boolean }[]): string {
  const thunks = calls.map((c) => `  ${c.awaits ? 'async ' : ''}() => (${c.call}),`).join('\n');
  return `${code}\n;globalThis.__stepwiseCalls = [\n${thunks}\n];\n`;
}
