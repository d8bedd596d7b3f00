/**
 * Memory hogs for the sandbox's total memory cap (issue 40, class 3), and an outside measure of
 * what a run holds: a separate sampler process that sums, every few milliseconds, the resident
 * memory (VmRSS, shared pages counted in every process, so it errs high) of everything this
 * process started. Used by hostileMemory.test.ts and bench/sandbox-memory.ts.
 */
import { spawn } from 'node:child_process';
import { parseAssertionLines } from '../../../src/core/tests/assertions';
import { runAssertions } from '../../../src/core/sandbox/index';
import type { SandboxLanguage, SuiteResult } from '../../../src/core/sandbox/types';

export interface Hog {
  name: string;
  language: SandboxLanguage;
  code: string;
  line: string;
}

export const HOGS: Hog[] = [
  {
    name: 'python: 12 forked children of 200 MiB each',
    language: 'python',
    code: `import os, time
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
    line: 'assert hog(12) == 12',
  },
  {
    name: 'javascript: a 3 GiB Buffer, filled',
    language: 'javascript',
    code: 'function hog(gib) {\n  const b = Buffer.alloc(gib * 2 ** 30);\n  b.fill(1);\n  return b.length;\n}\n',
    line: 'assert.strictEqual(hog(3), 3221225472);',
  },
  {
    name: 'typescript: a 3 GiB Buffer, filled',
    language: 'typescript',
    code: 'export function hog(gib: number): number {\n  const b: Buffer = Buffer.alloc(gib * 2 ** 30);\n  b.fill(1);\n  return b.length;\n}\n',
    line: 'assert.strictEqual(hog(3), 3221225472);',
  },
];

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

/** Runs one hog in the oracle under a memory cap; the result and the peak held, in MiB. */
export async function runHog(hog: Hog, memoryMb: number): Promise<{ r: SuiteResult; peakMb: number }> {
  const { tests } = await parseAssertionLines(hog.line, hog.language, 'hog');
  if (tests.length !== 1) throw new Error(`not admitted: ${hog.line}`);
  const sampler = spawn('python3', ['-c', SAMPLER, String(process.pid)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  sampler.stdout.on('data', (b: Buffer) => (out += b.toString()));
  const closed = new Promise((resolve) => sampler.on('close', resolve));
  let r: SuiteResult;
  try {
    r = await runAssertions({
      language: hog.language,
      code: hog.code,
      tests,
      memoryMb,
      runs: 1,
      timeoutMs: 20_000,
    });
  } finally {
    sampler.stdin.end();
    await closed;
  }
  const peakKb = Number(out.trim());
  if (!(peakKb > 0)) throw new Error(`the sampler measured nothing: ${out}`);
  return { r, peakMb: peakKb / 1024 };
}
