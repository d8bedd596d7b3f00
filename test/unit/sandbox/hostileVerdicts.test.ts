/**
 * Hostile cases, issue 16: wrong code that tries to forge its verdict. Each runs `stepwise sandbox
 * --assertions` as the trainer does; whatever the code does inside its sandbox, wrong code fails.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cli, scratch, verdicts } from './hostileHelpers';

// A JUnit report in which both tests passed: what every forgery below tries to get read.
const FAKE_REPORT =
  '<?xml version="1.0"?><testsuites><testsuite name="pytest" tests="2"><testcase classname="test_0000" name="test_0000" time="0"/><testcase classname="test_0001" name="test_0001" time="0"/></testsuite></testsuites>';

const WRONG_ADD = 'def add(a, b):\n    return a - b\n';
const ASSERTIONS = 'assert add(1, 2) == 3\nassert add(2, 2) == 4\n';

async function judge(code: string, assertions = ASSERTIONS, extra: string[] = []) {
  const s = scratch();
  try {
    const r = await cli(
      [
        'sandbox',
        '--code',
        s.file('solution.py', code),
        '--assertions',
        s.file('tests.txt', assertions),
        '--function',
        'add',
        '--json',
        ...extra,
      ],
      { limitMs: 90_000 },
    );
    assert.equal(r.code, 0, r.stderr);
    return verdicts(r);
  } finally {
    s.cleanup();
  }
}

function assertForgeryFailed(v: ReturnType<typeof verdicts>) {
  assert.equal(v.summary.total, 2, 'exactly the two admitted assertions were judged');
  assert.equal(
    v.summary.passed,
    0,
    `wrong code passed: ${JSON.stringify(v.statuses)}\n${v.outputs.join('\n')}`,
  );
  assert.equal(v.inProcess, false, 'the verdicts were judged outside the code under test');
}

test('forgery: an atexit hook that writes a passing report does not pass wrong code', async () => {
  const code = `import atexit, os
FAKE = ${JSON.stringify(FAKE_REPORT)}
def _forge():
    for folder in {".", os.environ.get("TMPDIR", "."), os.path.dirname(os.path.abspath(__file__))}:
        try:
            open(os.path.join(folder, "report.xml"), "w").write(FAKE)
        except OSError:
            pass
atexit.register(_forge)
${WRONG_ADD}`;
  assertForgeryFailed(await judge(code));
});

test('forgery: os._exit after writing a passing report does not pass wrong code', async () => {
  const code = `import os
FAKE = ${JSON.stringify(FAKE_REPORT)}
def add(a, b):
    for folder in {".", os.environ.get("TMPDIR", ".")}:
        try:
            open(os.path.join(folder, "report.xml"), "w").write(FAKE)
        except OSError:
            pass
    print("2 passed in 0.01s")
    os._exit(0)
`;
  const v = await judge(code);
  assertForgeryFailed(v);
  assert.deepEqual(v.statuses, ['error', 'error']);
  assert.match(v.outputs[0], /process ended during it/);
});

test('forgery: patching pytest from the code under test (reports, plugins found through gc) changes nothing', async () => {
  const code = `import gc
try:
    import _pytest.reports as reports
    reports.TestReport.outcome = property(lambda self: "passed", lambda self, value: None)
    class Always:
        def pytest_runtest_makereport(self, item, call):
            call.excinfo = None
    for obj in gc.get_objects():
        if type(obj).__name__ == "Config" and hasattr(obj, "pluginmanager"):
            obj.pluginmanager.register(Always(), "always-pass")
except Exception:
    pass
${WRONG_ADD}`;
  assertForgeryFailed(await judge(code));
});

test('forgery: tests injected by the code under test are not counted', async () => {
  const code = `import os, sys
for folder in {".", os.environ.get("TMPDIR", ".")}:
    try:
        open(os.path.join(folder, "test_9999.py"), "w").write("def test_injected():\\n    pass\\n")
    except OSError:
        pass
caller = sys._getframe(0)
while caller:
    caller.f_globals.setdefault("test_injected", lambda: None)
    caller = caller.f_back
${WRONG_ADD}`;
  assertForgeryFailed(await judge(code));
});

test('forgery: result records written to the channel before a call starts are ignored', async () => {
  const records = [0, 1].map((i) => `{"i": ${i}, "r": {"t": "int", "v": "${i === 0 ? 3 : 4}"}}`).join('\\n');
  const code = `import os
for fd in range(3, 10):
    try:
        os.write(fd, b'${records}\\n')
    except OSError:
        pass
${WRONG_ADD}`;
  assertForgeryFailed(await judge(code));
});

test('forgery: results that claim equality (__eq__, int subclasses, proxies) never equal anything', async () => {
  const code = `class Yes(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__
def add(a, b):
    return Yes(0)
`;
  const v = await judge(code);
  assertForgeryFailed(v);
  assert.match(v.outputs[0], /not a plain value/);
  const s = scratch();
  try {
    const js = await cli(
      [
        'sandbox',
        '--code',
        s.file('add.js', 'function add(a, b) {\n  return new Proxy({}, { get: () => () => true });\n}\n'),
        '--assertions',
        s.file('t.txt', 'assert.deepStrictEqual(add(1, 2), 3);\nassert.strictEqual(add(2, 2), 4);\n'),
        '--json',
      ],
      { limitMs: 60_000 },
    );
    assertForgeryFailed(verdicts(js));
  } finally {
    s.cleanup();
  }
});

test('whole test functions still run, but their verdicts say they came from inside the process', async () => {
  const s = scratch();
  try {
    const r = await cli(
      [
        'sandbox',
        '--code',
        s.file('add.py', 'def add(a, b):\n    return a + b\n'),
        '--tests',
        s.file('test_add.py', 'def test_add():\n    assert add(1, 2) == 3\n'),
        '--json',
      ],
      { limitMs: 60_000 },
    );
    const v = verdicts(r);
    assert.deepEqual(v.statuses, ['passed']);
    assert.equal(v.inProcess, true);
    assert.equal((v.raw.verdicts as { inProcess: boolean }[])[0].inProcess, true);
  } finally {
    s.cleanup();
  }
});
