import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { runSuite } from '../../../src/core/sandbox/index';
import type { SandboxTest, SuiteResult } from '../../../src/core/sandbox/types';

const t = (name: string, body: string): SandboxTest => ({
  name,
  source: `def ${name}():\n${body.replace(/^/gm, '    ')}\n`,
});
const byName = (r: SuiteResult) => Object.fromEntries(r.verdicts.map((v) => [v.name, v]));

test('python: passed, failed and uncollectable tests each get their verdict, and the rest still runs', async () => {
  const r = await runSuite({
    language: 'python',
    code: 'def add(a, b):\n    return a + b\n',
    tests: [
      t('test_ok', 'assert add(1, 2) == 3'),
      t('test_wrong', 'assert add(1, 2) == 4'),
      { name: 'test_broken', source: 'def test_broken(:\n    pass\n' },
      {
        name: 'test_missing_import',
        source: 'import no_such_module\n\ndef test_missing_import():\n    assert True\n',
      },
      t('test_raises', 'raise ValueError("boom")'),
    ],
  });
  const v = byName(r);
  assert.equal(v.test_ok.status, 'passed');
  assert.equal(v.test_wrong.status, 'failed');
  assert.match(v.test_wrong.output, /assert 3 == 4/);
  assert.equal(v.test_broken.status, 'uncollectable');
  assert.equal(v.test_missing_import.status, 'uncollectable');
  assert.equal(v.test_raises.status, 'failed');
  assert.match(v.test_raises.output, /boom/);
  assert.equal(r.summary.total, 5);
  assert.equal(r.summary.uncollectable, 2);
});

test('python: a syntax error in the code under test makes every test uncollectable, not a crash', async () => {
  const r = await runSuite({
    language: 'python',
    code: 'def add(a, b)\n    return a + b\n',
    tests: [t('test_a', 'assert add(1, 1) == 2')],
  });
  assert.equal(r.verdicts[0].status, 'uncollectable');
  assert.match(r.verdicts[0].output, /SyntaxError|invalid syntax|expected ':'/);
});

test('javascript: node test runner verdicts, including a test that does not parse', async () => {
  const r = await runSuite({
    language: 'javascript',
    code: 'function add(a, b) { return a + b; }\n',
    tests: [
      { name: 'adds', source: "test('adds', () => { assert.equal(add(1, 2), 3); });" },
      { name: 'wrong', source: "test('wrong', () => { assert.equal(add(1, 2), 4); });" },
      { name: 'broken', source: "test('broken', () => { assert.equal(add(1, 2), 3) ;" },
    ],
  });
  const v = byName(r);
  assert.equal(v.adds.status, 'passed');
  assert.equal(v.wrong.status, 'failed');
  assert.equal(v.broken.status, 'uncollectable');
});

// The hostile-code suite: every case ends with a clear verdict and this process survives.

test('hostile: an infinite loop times out and the other tests still pass', async () => {
  const r = await runSuite({
    language: 'python',
    code: '',
    timeoutMs: 1500,
    tests: [t('test_loop', 'while True:\n    pass'), t('test_fine', 'assert True')],
  });
  const v = byName(r);
  assert.equal(v.test_loop.status, 'timeout');
  assert.equal(v.test_fine.status, 'passed');
});

test('hostile: a loop that ignores the per-test alarm is killed by the suite limit', async () => {
  const started = Date.now();
  const r = await runSuite({
    language: 'python',
    code: '',
    timeoutMs: 1000,
    suiteTimeoutMs: 4000,
    tests: [
      t(
        'test_stubborn',
        'import signal\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\nwhile True:\n    pass',
      ),
    ],
  });
  assert.equal(r.verdicts[0].status, 'timeout');
  assert.ok(Date.now() - started < 30_000);
});

test('hostile: a fork bomb is contained', { skip: process.platform !== 'linux' }, async () => {
  const r = await runSuite({
    language: 'python',
    code: '',
    timeoutMs: 3000,
    suiteTimeoutMs: 10_000,
    tests: [
      t(
        'test_fork_bomb',
        'import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass',
      ),
    ],
  });
  assert.ok(['timeout', 'failed', 'error'].includes(r.verdicts[0].status), r.verdicts[0].status);
  // The host can still start processes afterwards.
  const after = await runSuite({
    language: 'python',
    code: '',
    tests: [t('test_after', 'assert 1 + 1 == 2')],
  });
  assert.equal(after.verdicts[0].status, 'passed');
});

test('hostile: a memory hog hits the memory cap', async () => {
  const r = await runSuite({
    language: 'python',
    code: '',
    memoryMb: 256,
    tests: [t('test_hog', 'x = bytearray(2 * 1024 ** 3)\nassert len(x) > 0')],
  });
  assert.notEqual(r.verdicts[0].status, 'passed');
  assert.match(r.verdicts[0].output, /MemoryError/);
});

test('hostile: huge output is cut to the cap', async () => {
  const r = await runSuite({
    language: 'python',
    code: '',
    outputCapBytes: 2000,
    tests: [t('test_loud', 'print("x" * 5_000_000)\nassert False')],
  });
  assert.equal(r.verdicts[0].status, 'failed');
  assert.ok(r.verdicts[0].output.length < 2200, `output kept: ${r.verdicts[0].output.length} characters`);
  assert.match(r.verdicts[0].output, /more characters cut/);
});

test('hostile: writing outside the temp folder fails when isolated', async (ctx) => {
  const target = path.join(os.homedir(), `stepwise-escape-${process.pid}.txt`);
  const r = await runSuite({
    language: 'python',
    code: '',
    tests: [t('test_escape', `open(${JSON.stringify(target)}, "w").write("escaped")`)],
  });
  if (!r.isolation.isolated) return ctx.skip(`not isolated here: ${r.isolation.summary}`);
  assert.equal(fs.existsSync(target), false, 'the file must not exist on the host');
  assert.equal(r.verdicts[0].status, 'failed');
  assert.match(r.verdicts[0].output, /Read-only file system|Permission denied|No such file/);
});

test('hostile: the network, loopback included, is unreachable when isolated', async (ctx) => {
  const server = net.createServer((s) => s.end('hello'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as net.AddressInfo).port;
  try {
    const r = await runSuite({
      language: 'python',
      code: '',
      tests: [
        t(
          'test_connect',
          `import socket\ns = socket.create_connection(("127.0.0.1", ${port}), timeout=2)\nassert s.recv(5) == b"hello"`,
        ),
      ],
    });
    if (!r.isolation.isolated) return ctx.skip(`not isolated here: ${r.isolation.summary}`);
    assert.equal(r.verdicts[0].status, 'failed');
    assert.match(r.verdicts[0].output, /ConnectionRefused|Network is unreachable|timed out/);
  } finally {
    server.close();
  }
});

test('the isolation report says in words what is and is not isolated', async () => {
  const r = await runSuite({ language: 'python', code: '', tests: [t('test_x', 'assert True')] });
  assert.ok(r.isolation.summary.length > 20);
  assert.ok(r.isolation.filesystem && r.isolation.network && r.isolation.memory && r.isolation.processes);
});

test('temporary folders are removed after the run', async () => {
  // A private TMPDIR, since other runs on this machine may use the sandbox at the same time.
  const privateTmp = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-tmpcheck-'));
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = privateTmp;
  try {
    const r = await runSuite({ language: 'python', code: '', tests: [t('test_x', 'assert True')] });
    assert.equal(r.verdicts[0].status, 'passed');
    assert.deepEqual(fs.readdirSync(privateTmp), []);
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
    fs.rmSync(privateTmp, { recursive: true, force: true });
  }
});

test('a missing interpreter is a sandbox error that says what to do', async () => {
  await assert.rejects(
    runSuite({
      language: 'python',
      code: '',
      pythonPath: '/nonexistent/python',
      tests: [t('test_x', 'assert True')],
    }),
    /cannot be started|pytest/,
  );
});
