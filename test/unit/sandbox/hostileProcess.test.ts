/**
 * Hostile cases, issue 16: tests that try to hang or exhaust the host. Every run must end within
 * its bound with a clear verdict, and leave no folder or cgroup behind, even when interrupted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cli, leftoverCgroups, privateTmp, scratch, until, verdicts } from './hostileHelpers';

const linux = process.platform === 'linux';
const SUITE_MS = 8000;
// Start-up of node and of the sandbox on top of the promised suite bound.
const SLACK_MS = 5000;

async function sandboxRun(files: Record<string, string>, args: string[], limitMs = 60_000) {
  const s = scratch();
  const tmp = privateTmp(s.dir);
  try {
    const paths = Object.fromEntries(Object.entries(files).map(([k, v]) => [k, s.file(k, v)]));
    let pid = 0;
    const r = await cli(
      ['sandbox', ...args.map((a) => paths[a] ?? a), '--suite-timeout-ms', String(SUITE_MS), '--json'],
      { limitMs, env: { TMPDIR: tmp }, onStart: (p) => (pid = p) },
    );
    return { r, left: fs.readdirSync(tmp), cgroups: leftoverCgroups(pid) };
  } finally {
    s.cleanup();
  }
}

test(
  'a test that ignores SIGALRM: the CLI still ends within its bound and says timeout',
  { skip: !linux },
  async () => {
    const { r, left } = await sandboxRun(
      {
        'code.py': 'def add(a, b):\n    return a + b\n',
        'test_add.py': `def test_stubborn():
    import signal
    signal.signal(signal.SIGALRM, signal.SIG_IGN)
    while True:
        pass

def test_fine():
    assert add(1, 2) == 3
`,
      },
      ['--code', 'code.py', '--tests', 'test_add.py', '--timeout-ms', '1000'],
    );
    assert.equal(r.killed, undefined, `the CLI had to be killed after ${r.ms} ms`);
    assert.ok(r.ms < SUITE_MS + SLACK_MS, `the CLI took ${r.ms} ms for a ${SUITE_MS} ms suite`);
    assert.deepEqual(verdicts(r).statuses, ['timeout', 'passed']);
    assert.deepEqual(left, []);
  },
);

test(
  'a call that ignores SIGALRM is killed by the host and judged a timeout; the others still run',
  { skip: !linux },
  async () => {
    const { r } = await sandboxRun(
      {
        'code.py': `import signal
def slow(x):
    if x:
        signal.signal(signal.SIGALRM, signal.SIG_IGN)
        while True:
            pass
    return x
`,
        'tests.txt': 'assert slow(1) == 1\nassert slow(0) == 0\n',
      },
      ['--code', 'code.py', '--assertions', 'tests.txt', '--timeout-ms', '1000'],
    );
    assert.ok(r.ms < SUITE_MS + SLACK_MS, `took ${r.ms} ms`);
    const v = verdicts(r);
    assert.deepEqual(v.statuses, ['timeout', 'passed']);
    assert.match(v.outputs[0], /killed by the host/);
  },
);

test('a report file turned into a FIFO ends in a verdict, not a hang', { skip: !linux }, async () => {
  const { r, left, cgroups } = await sandboxRun(
    {
      'code.py': 'def add(a, b):\n    return a + b\n',
      'test_add.py': `def test_fifo():
    import os
    for name in ("report.xml", os.path.join(os.environ.get("TMPDIR", "."), "report.xml")):
        try:
            os.remove(name)
        except OSError:
            pass
        os.mkfifo(name)
    assert add(1, 2) == 3
`,
    },
    ['--code', 'code.py', '--tests', 'test_add.py'],
    40_000,
  );
  assert.equal(r.killed, undefined, `the CLI hung and was killed after ${r.ms} ms`);
  assert.ok(r.ms < SUITE_MS + SLACK_MS, `took ${r.ms} ms`);
  assert.notEqual(verdicts(r).statuses[0], 'passed');
  assert.deepEqual(left, [], 'the run folder was removed');
  assert.deepEqual(cgroups, [], 'the pids cgroup was removed');
});

test('a report linked to /dev/zero ends in a verdict without eating memory', { skip: !linux }, async () => {
  const { r, left } = await sandboxRun(
    {
      'code.py': 'def add(a, b):\n    return a + b\n',
      'test_add.py': `def test_zero():
    import os
    for name in ("report.xml", os.path.join(os.environ.get("TMPDIR", "."), "report.xml")):
        try:
            os.remove(name)
        except OSError:
            pass
        os.symlink("/dev/zero", name)
    assert add(1, 2) == 3
`,
    },
    ['--code', 'code.py', '--tests', 'test_add.py'],
    40_000,
  );
  assert.equal(
    r.killed,
    undefined,
    `the CLI was killed (${r.killed}) at ${Math.round(r.peakRssMb)} MiB after ${r.ms} ms`,
  );
  assert.ok(r.peakRssMb < 500, `the CLI grew to ${Math.round(r.peakRssMb)} MiB`);
  assert.notEqual(verdicts(r).statuses[0], 'passed');
  assert.deepEqual(left, []);
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  test(
    `${signal} to the CLI removes the run's folder and cgroup before it exits`,
    { skip: !linux },
    async () => {
      const s = scratch();
      const tmp = privateTmp(s.dir);
      try {
        const code = s.file('code.py', 'def add(a, b):\n    return a + b\n');
        const tests = s.file('test_add.py', 'def test_loop():\n    while True:\n        pass\n');
        let pid = 0;
        const running = cli(
          [
            'sandbox',
            '--code',
            code,
            '--tests',
            tests,
            '--timeout-ms',
            '60000',
            '--suite-timeout-ms',
            '120000',
          ],
          {
            limitMs: 60_000,
            env: { TMPDIR: tmp },
            onStart: (p) => (pid = p),
          },
        );
        // Wait until the sandbox runs (its folder exists), then interrupt the CLI.
        await until('the sandbox folder', () => (fs.readdirSync(tmp).length ? true : undefined));
        await new Promise((r) => setTimeout(r, 1000));
        process.kill(pid, signal);
        const r = await running;
        assert.equal(r.killed, undefined, 'the CLI did not stop on the signal');
        assert.equal(r.code, signal === 'SIGINT' ? 130 : 143, r.stderr);
        assert.deepEqual(
          fs.readdirSync(tmp),
          [],
          `left behind: ${fs.readdirSync(tmp).map((n) => path.join(tmp, n))}`,
        );
        assert.deepEqual(leftoverCgroups(pid), []);
      } finally {
        s.cleanup();
      }
    },
  );
}
