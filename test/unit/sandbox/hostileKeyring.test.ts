/**
 * Hostile cases, issue 40 class 5: the kernel keyring. The caller has a session keyring with a
 * secret in it (normal on desktop and ssh logins); generated code tries to read it, and to leave
 * a key behind that a later run would find (state that defeats the flaky check). A small Python
 * launcher gives the real CLI that session keyring, runs `stepwise sandbox` twice under it, and
 * then looks in its own keyring for what the runs left.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { CLI, scratch } from './hostileHelpers';

const linux = process.platform === 'linux';
const SYSCALLS = `{"x86_64": (248, 249, 250), "aarch64": (217, 218, 219)}[platform.machine()]`;

/** The code under test: 'clean' when it can neither read the caller's key nor find one it left. */
const PROBE = `import ctypes, platform
ADD_KEY, REQUEST_KEY, KEYCTL = ${SYSCALLS}
def probe(attempt):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    secret = libc.syscall(REQUEST_KEY, b"user", b"stepwise-caller-secret", None, 0)
    if secret > 0:
        buf = ctypes.create_string_buffer(64)
        libc.syscall(KEYCTL, 11, ctypes.c_long(secret), buf, 64)
        return "read the caller's key: %r" % buf.value
    if libc.syscall(REQUEST_KEY, b"user", b"stepwise-left-behind", None, 0) > 0:
        return "found a key an earlier run left"
    for ring in (-3, -4, -5):
        libc.syscall(ADD_KEY, b"user", b"stepwise-left-behind", b"1", 1, ring)
    return "clean"
`;

/** Joins a fresh session keyring, adds a secret, runs the CLI twice, reports what is left. */
const LAUNCHER = `import ctypes, json, platform, subprocess, sys
ADD_KEY, REQUEST_KEY, KEYCTL = ${SYSCALLS}
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
assert libc.syscall(KEYCTL, 1, b"stepwise-test-session") > 0, "no keyring here"
assert libc.syscall(ADD_KEY, b"user", b"stepwise-caller-secret", b"hunter2", 7, -3) > 0
runs = [subprocess.run(sys.argv[1:], capture_output=True, text=True) for _ in range(2)]
left = libc.syscall(KEYCTL, 10, ctypes.c_long(-3), b"user", b"stepwise-left-behind", 0)
print(json.dumps({"runs": [[r.returncode, r.stdout, r.stderr] for r in runs], "left": left > 0}))
`;

function keyringsWork(): boolean {
  const r = spawnSync('python3', [
    '-c',
    `import ctypes, platform\nADD_KEY, REQUEST_KEY, KEYCTL = ${SYSCALLS}\nlibc = ctypes.CDLL(None)\nlibc.syscall.restype = ctypes.c_long\nassert libc.syscall(KEYCTL, 1, None) > 0`,
  ]);
  return r.status === 0;
}

test(
  "keyring: generated code cannot read the caller's session keyring, and leaves nothing for the next run",
  { skip: !linux || !keyringsWork() },
  async () => {
    const s = scratch();
    try {
      const code = s.file('probe.py', PROBE);
      const lines = s.file('tests.txt', 'assert probe(0) == "clean"\n');
      const cmd = [
        process.execPath,
        CLI,
        'sandbox',
        '--code',
        code,
        '--assertions',
        lines,
        '--function',
        'probe',
        '--json',
      ];
      const launched = spawnSync('python3', ['-c', LAUNCHER, ...cmd], { encoding: 'utf8', timeout: 120_000 });
      assert.equal(launched.status, 0, launched.stderr);
      const report = JSON.parse(launched.stdout) as { runs: [number, string, string][]; left: boolean };
      for (const [code, stdout, stderr] of report.runs) {
        assert.equal(code, 0, stderr);
        const result = JSON.parse(stdout) as {
          verdicts: { status: string; output: string }[];
          isolation: { keyring: string };
        };
        assert.equal(result.verdicts[0].status, 'passed', result.verdicts[0].output);
        assert.match(result.isolation.keyring, /^no kernel keyring/);
      }
      assert.equal(report.left, false, "a run left a key in the caller's session keyring");
    } finally {
      s.cleanup();
    }
  },
);
