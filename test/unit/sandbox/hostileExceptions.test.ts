/**
 * Hostile cases, issue 40 class 1: code that raises an impostor of the exception a test expects.
 * A `pytest.raises(E)` / `assert.throws(fn, E)` test passes only for a real instance of the
 * built-in E (or a real subclass), resolved where the code under test cannot redefine it, as
 * pytest and Node themselves decide; a class that only carries E's name fails.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAssertionLines } from '../../../src/core/tests/assertions';
import { runAssertions } from '../../../src/core/sandbox/index';
import type { SandboxLanguage } from '../../../src/core/sandbox/types';

async function statuses(language: SandboxLanguage, code: string, lines: string[], fn = 'f') {
  const { tests, rejected } = await parseAssertionLines(lines.join('\n'), language, fn);
  assert.deepEqual(rejected, [], 'every line is an admissible assertion');
  const r = await runAssertions({ language, code, tests, runs: 1 });
  assert.equal(r.inProcess, false);
  return r.verdicts.map((v) => `${v.status}${v.status === 'passed' ? '' : `: ${v.output.split('\n')[0]}`}`);
}

/** Whether each test passed: an impostor must not (it may fail, or break its own process). */
const passedOnly = (s: string[]) => s.map((x) => (x.startsWith('passed') ? 'passed' : 'not passed'));

test('python: classes that only carry a built-in exception name never pass pytest.raises', async () => {
  const code = `import builtins

class Spoofed(Exception):
    pass
Spoofed.__name__ = Spoofed.__qualname__ = "ValueError"
Spoofed.__module__ = "builtins"

class ValueError(Exception):
    pass

class Meta(type):
    __qualname__ = "TypeError"
class Everything(Exception, metaclass=Meta):
    __module__ = "builtins"
    __qualname__ = "KeyError"

def f(x):
    if x == 0:
        raise Spoofed("spoofed __qualname__ and __module__")
    if x == 1:
        raise ValueError("a module-level class named ValueError")
    if x == 2:
        builtins.TypeError = Everything
        builtins.KeyError = Everything
        raise Everything("the built-in names rebound to a class of the code's own")
    if x == 3:
        raise builtins.ValueError("a real one")
    if x == 4:
        class Sub(builtins.ValueError):
            pass
        raise Sub("a real subclass")
    return x
`;
  const s = await statuses('python', code, [
    'with pytest.raises(ValueError): f(0)',
    'with pytest.raises(ValueError): f(1)',
    'with pytest.raises(TypeError): f(2)',
    'with pytest.raises(KeyError): f(2)',
    'with pytest.raises(ValueError): f(3)',
    'with pytest.raises(ValueError): f(4)',
    'with pytest.raises(Exception): f(4)',
  ]);
  assert.deepEqual(
    passedOnly(s),
    ['not passed', 'not passed', 'not passed', 'not passed', 'passed', 'passed', 'passed'],
    s.join('\n'),
  );
});

test('python: an exception class of the code under test still matches by its own name', async () => {
  const code = `class ParseError(Exception):
    pass
class Strict(ParseError):
    pass
def f(x):
    raise Strict("no")
`;
  const s = await statuses('python', code, [
    'with pytest.raises(Strict): f(1)',
    'with pytest.raises(ParseError): f(2)',
    'with pytest.raises(LookupError): f(3)',
  ]);
  assert.deepEqual(passedOnly(s), ['passed', 'passed', 'not passed'], s.join('\n'));
});

const JS_IMPOSTORS = `function TypeError(message) {
  this.message = message;
}
class Named extends Error {}
Object.defineProperty(Named, 'name', { value: 'RangeError' });
function f(x) {
  if (x === 0) throw new TypeError('a module-level function named TypeError');
  if (x === 1) throw new Named('a class whose name says RangeError');
  if (x === 2) {
    const e = new Error('a prototype chain of constructors named after every error');
    let proto = Error.prototype;
    for (const name of ['TypeError', 'RangeError', 'SyntaxError']) {
      const ctor = function () {};
      Object.defineProperty(ctor, 'name', { value: name });
      proto = Object.create(proto, { constructor: { value: ctor } });
    }
    Object.setPrototypeOf(e, proto);
    globalThis.TypeError = ctor0();
    throw e;
  }
  if (x === 3) throw new globalThis.RangeError('a real one');
  if (x === 4) throw new (class Sub extends globalThis.RangeError {})('a real subclass');
  return x;
}
function ctor0() {
  return function TypeError() {};
}
`;
const JS_LINES = [
  'assert.throws(() => f(0), TypeError);',
  'assert.throws(() => f(1), RangeError);',
  'assert.throws(() => f(2), TypeError);',
  'assert.throws(() => f(2), RangeError);',
  'assert.throws(() => f(3), RangeError);',
  'assert.throws(() => f(4), RangeError);',
  'assert.throws(() => f(4), Error);',
];
const JS_EXPECTED = ['not passed', 'not passed', 'not passed', 'not passed', 'passed', 'passed', 'passed'];

test('javascript: objects whose prototype chain names TypeError or RangeError never pass assert.throws', async () => {
  const s = await statuses('javascript', JS_IMPOSTORS, JS_LINES);
  assert.deepEqual(passedOnly(s), JS_EXPECTED, s.join('\n'));
});

test('typescript: the same impostors, with types, never pass assert.throws', async () => {
  const code = JS_IMPOSTORS.replace('function f(x)', 'export function f(x: number): number').replace(
    'function TypeError(message)',
    'function TypeError(this: { message: string }, message: string)',
  );
  const s = await statuses('typescript', code, JS_LINES);
  assert.deepEqual(passedOnly(s), JS_EXPECTED, s.join('\n'));
});

test('javascript: an error class of the code under test still matches by its own name', async () => {
  const code = `class ParseError extends Error {}
class Strict extends ParseError {}
function f(x) {
  throw new Strict('no');
}
`;
  const s = await statuses('javascript', code, [
    'assert.throws(() => f(1), Strict);',
    'assert.throws(() => f(2), ParseError);',
    'assert.throws(() => f(3), TypeError);',
  ]);
  assert.deepEqual(passedOnly(s), ['passed', 'passed', 'not passed'], s.join('\n'));
});
