/**
 * What a sandboxed run holds under `--memory-mb`, measured from outside (memoryHogs.ts): each
 * hog of the hostile suite, REPEATS times, under CAP_MB. Writes
 * bench/results/sandbox-memory-<uid>.json: the peak per run, and which caps were in force
 * (the isolation report's words), so a root run (memory cgroup) and an unprivileged one
 * (supervisor) can be compared.
 *
 *   npx tsc -p tsconfig.json && node out/bench/sandbox-memory.js [REPEATS] [CAP_MB]
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { HOGS, runHog } from '../test/unit/sandbox/memoryHogs';

async function main(): Promise<void> {
  const repeats = Number(process.argv[2] ?? 3);
  const capMb = Number(process.argv[3] ?? 256);
  const rows: { hog: string; peaksMb: number[]; statuses: string[] }[] = [];
  let memory = '';
  for (const hog of HOGS) {
    const row = { hog: hog.name, peaksMb: [] as number[], statuses: [] as string[] };
    for (let i = 0; i < repeats; i++) {
      const { r, peakMb } = await runHog(hog, capMb);
      row.peaksMb.push(Math.round(peakMb));
      row.statuses.push(r.verdicts[0].status);
      memory = r.isolation.memory;
    }
    rows.push(row);
    console.log(`${hog.name}: peaks ${row.peaksMb.join(', ')} MiB`);
  }
  const out = path.join(
    __dirname,
    '..',
    '..',
    'bench',
    'results',
    `sandbox-memory-uid${process.getuid?.() ?? 'x'}.json`,
  );
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const result = {
    capMb,
    repeats,
    measuredAs: "sum of VmRSS over the run's processes, sampled every 4 ms by a separate process",
    capsInForce: memory,
    uid: process.getuid?.(),
    date: new Date().toISOString(),
    rows,
    maxPeakMb: Math.max(...rows.flatMap((r) => r.peaksMb)),
  };
  fs.writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`wrote ${out}`);
}

void main();
