/**
 * Hostile cases, issue 16: generated tests that try to get out of the sandbox. Each test body
 * asserts, from inside, that the escape failed; the host checks the effects it can see.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { runSuite } from '../../../src/core/sandbox/index';
import type { SuiteResult } from '../../../src/core/sandbox/types';
import { scratch } from './hostileHelpers';

const linux = process.platform === 'linux';

async function inside(
  body: string,
  extra: { diskMb?: number; timeoutMs?: number } = {},
): Promise<SuiteResult> {
  return runSuite({
    language: 'python',
    code: '',
    tests: [{ name: 'test_escape', source: `def test_escape():\n${body.replace(/^/gm, '    ')}\n` }],
    timeoutMs: extra.timeoutMs ?? 20_000,
    suiteTimeoutMs: 60_000,
    ...extra,
  });
}

function assertHeld(r: SuiteResult) {
  assert.ok(r.isolation.isolated, `not isolated here: ${r.isolation.summary}`);
  assert.equal(r.verdicts[0].status, 'passed', r.verdicts[0].output);
}

test(
  'confinement: / cannot be remounted read-write and no host file can be written',
  { skip: !linux },
  async () => {
    const target = `/usr/local/stepwise-escape-${process.pid}`;
    try {
      const r = await inside(`import subprocess
for options in ("remount,rw", "remount,bind,rw"):
    r = subprocess.run(["mount", "-o", options, "/"], capture_output=True, text=True)
    assert r.returncode != 0, "mount -o %s / succeeded" % options
try:
    open(${JSON.stringify(target)}, "w").write("escaped")
    wrote = True
except OSError:
    wrote = False
assert not wrote, "wrote a file on the host"`);
      assertHeld(r);
      assert.equal(fs.existsSync(target), false);
    } finally {
      fs.rmSync(target, { force: true });
    }
  },
);

test('confinement: no capabilities, not root, no nested user namespace', { skip: !linux }, async () => {
  const r = await inside(`import os, ctypes
status = open("/proc/self/status").read()
effective = int(status.split("CapEff:")[1].split()[0], 16)
assert effective == 0, "capabilities kept: %x" % effective
assert os.getuid() != 0 and os.geteuid() != 0, "runs as root"
libc = ctypes.CDLL(None, use_errno=True)
assert libc.unshare(0x10000000) != 0, "created a user namespace inside the sandbox"`);
  assertHeld(r);
  assert.match(r.isolation.user, /no capabilities/);
});

test(
  'confinement: the pids cgroup cannot be left (no cgroup file is writable inside)',
  { skip: !linux },
  async () => {
    // The escape: writing its own pid into a hierarchy's root cgroup, out of the capped group.
    const r = await inside(`import glob, os, subprocess
# First the read-only bind over the cgroup files, as an escaping test would.
for target in ["/sys/fs/cgroup"] + glob.glob("/sys/fs/cgroup/*"):
    subprocess.run(["mount", "-o", "remount,bind,rw", target], capture_output=True)
escaped = []
for procs in ["/sys/fs/cgroup/cgroup.procs"] + glob.glob("/sys/fs/cgroup/*/cgroup.procs"):
    try:
        with open(procs, "w") as f:
            f.write(str(os.getpid()))
        escaped.append(procs)
    except OSError:
        pass
assert not escaped, "moved itself into " + ", ".join(escaped)`);
    assertHeld(r);
  },
);

test('confinement: a Unix socket under /tmp on the host cannot be reached', { skip: !linux }, async () => {
  const s = scratch();
  const socketPath = path.join(s.dir, 'host.sock');
  let connections = 0;
  const server = net.createServer((c) => {
    connections++;
    c.end('secret');
  });
  await new Promise<void>((resolve) => server.listen(socketPath, () => resolve()));
  fs.chmodSync(socketPath, 0o777);
  try {
    const r = await inside(`import socket
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(${JSON.stringify(socketPath)})
    reached = s.recv(6)
except OSError:
    reached = None
assert reached is None, "reached the host socket: %r" % reached`);
    assertHeld(r);
    assert.equal(connections, 0);
  } finally {
    server.close();
    s.cleanup();
  }
});

test("confinement: files in the user's home cannot be read", { skip: !linux }, async () => {
  // The home folder when this user can write there, else a folder beside the sandbox's own.
  let home = os.homedir();
  try {
    fs.accessSync(home, fs.constants.W_OK);
  } catch {
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-home-'));
  }
  const secret = path.join(home, `.stepwise-hostile-secret-${process.pid}`);
  fs.writeFileSync(secret, 'token=hunter2\n', { mode: 0o644 });
  try {
    const r = await inside(`import os
try:
    leaked = open(${JSON.stringify(secret)}).read()
except OSError:
    leaked = None
assert leaked is None, "read a file in the home folder"
assert not os.path.exists(${JSON.stringify(secret)}), "the secret file is visible"`);
    assertHeld(r);
  } finally {
    fs.rmSync(secret, { force: true });
    if (home !== os.homedir()) fs.rmSync(home, { recursive: true, force: true });
  }
});

test('confinement: writing fills a capped folder, never the host disk', { skip: !linux }, async () => {
  const r = await inside(
    `import os
written = 0
chunk = b"x" * (1024 * 1024)
try:
    for i in range(10):
        with open("fill-%d.bin" % i, "wb") as f:
            for _ in range(30):
                f.write(chunk)
                written += len(chunk)
except OSError as e:
    stopped = e
else:
    stopped = None
for i in range(10):
    if os.path.exists("fill-%d.bin" % i):
        os.remove("fill-%d.bin" % i)
assert stopped is not None and written < 100 * 1024 * 1024, "wrote %d MiB" % (written >> 20)`,
    { diskMb: 64 },
  );
  assertHeld(r);
});
