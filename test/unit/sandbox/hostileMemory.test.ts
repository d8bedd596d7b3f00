/**
 * Hostile cases, issue 40 class 3: `memoryMb` caps the whole sandbox, all its processes together.
 * Python forks twelve children that each hold 200 MiB; Node fills a 3 GiB Buffer (outside V8's
 * heap). A separate sampler process measures, every few milliseconds, the resident memory of
 * everything this test process started: under a 256 MiB cap it must never reach 512 MiB.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { parseAssertionLines } from '../../../src/core/codeReasoning/assertions';
import { runAssertions } from '../../../src/core/sandbox/index';
import type { SandboxLanguage, SuiteResult } from '../../../src/core/sandbox/types';

const linux = process.platform === 'linux';
const CAP_MB = 256;
const LIMIT_MB = 512;

/** Sums VmRSS over every descendant of ROOT (but itself) until stdin closes; prints the peak in kB. */
const SAMPLER = `import os, select, sys
root, me, peak = int(sys.argv[1]), os.getpid(), 0
def tree(pid):
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            for t in os.listdir("/proc/%d/task" % p):
                with open("/proc/%d/task/%s/children" % (p, t)) as f:
                    kids = [int(c) for c in f.read().split()]
                out += kids
                todo += kids
        except OSError:
            pass
    return out
def rss(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0
while not select.select([sys.stdin], [], [], 0.004)[0]:
    peak = max(peak, sum(rss(p) for p in tree(root) if p != me))
print(peak)
`;

async function hog(
  language: SandboxLanguage,
  code: string,
  line: string,
): Promise<{ r: SuiteResult; peakMb: number }> {
  const { tests } = await parseAssertionLines(line, language, 'hog');
  assert.equal(tests.length, 1, `admitted: ${line}`);
  let peakKb: number;
  const sampler = spawn('python3', ['-c', SAMPLER, String(process.pid)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  sampler.stdout.on('data', (b: Buffer) => (out += b.toString()));
  let r: SuiteResult;
  try {
    r = await runAssertions({ language, code, tests, memoryMb: CAP_MB, runs: 1, timeoutMs: 20_000 });
  } finally {
    sampler.stdin.end();
    await new Promise((resolve) => sampler.on('close', resolve));
    peakKb = Number(out.trim());
  }
  assert.ok(peakKb > 0, 'the sampler measured the sandbox');
  return { r, peakMb: peakKb / 1024 };
}

test(
  'memory: twelve forked Python children of 200 MiB each stay under the cap together',
  { skip: !linux },
  async () => {
    const { r, peakMb } = await hog(
      'python',
      `import os, time
def hog(n):
    kids = []
    for _ in range(n):
        pid = os.fork()
        if pid == 0:
            block = b"x" * (200 * 1024 * 1024)
            time.sleep(3)
            os._exit(0 if block else 1)
        kids.append(pid)
    return sum(os.waitpid(k, 0)[1] == 0 for k in kids)
`,
      'assert hog(12) == 12',
    );
    assert.ok(peakMb < LIMIT_MB, `the sandbox held ${Math.round(peakMb)} MiB under a ${CAP_MB} MiB cap`);
    assert.notEqual(r.verdicts[0].status, 'passed', r.verdicts[0].output);
    assert.match(
      r.isolation.memory,
      new RegExp(`^${CAP_MB} MiB for the whole sandbox, all processes together`),
    );
  },
);

for (const language of ['javascript', 'typescript'] as const) {
  test(
    `memory: a 3 GiB Buffer in ${language} (outside the V8 heap) stays under the cap`,
    { skip: !linux },
    async () => {
      const { r, peakMb } = await hog(
        language,
        language === 'typescript'
          ? 'export function hog(gib: number): number {\n  const b: Buffer = Buffer.alloc(gib * 2 ** 30);\n  b.fill(1);\n  return b.length;\n}\n'
          : 'function hog(gib) {\n  const b = Buffer.alloc(gib * 2 ** 30);\n  b.fill(1);\n  return b.length;\n}\n',
        'assert.strictEqual(hog(3), 3221225472);',
      );
      assert.ok(peakMb < LIMIT_MB, `the sandbox held ${Math.round(peakMb)} MiB under a ${CAP_MB} MiB cap`);
      assert.notEqual(r.verdicts[0].status, 'passed', r.verdicts[0].output);
      assert.match(
        r.isolation.memory,
        new RegExp(`^${CAP_MB} MiB for the whole sandbox, all processes together`),
      );
    },
  );
}
