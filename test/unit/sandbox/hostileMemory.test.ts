/**
 * Hostile cases, issue 40 class 3: `memoryMb` caps the whole sandbox, all its processes together.
 * Python forks twelve children that each hold 200 MiB; Node fills a 3 GiB Buffer (outside V8's
 * heap), in JavaScript and TypeScript. A separate sampler process measures what the run holds
 * (memoryHogs.ts): under a 256 MiB cap it must never reach 512 MiB.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HOGS, runHog } from './memoryHogs';

const linux = process.platform === 'linux';
const CAP_MB = 256;
const LIMIT_MB = 512;

for (const hog of HOGS) {
  test(
    `memory: ${hog.name}: the whole sandbox stays under its ${CAP_MB} MiB cap`,
    { skip: !linux },
    async () => {
      const { r, peakMb } = await runHog(hog, CAP_MB);
      assert.ok(peakMb < LIMIT_MB, `the sandbox held ${Math.round(peakMb)} MiB under a ${CAP_MB} MiB cap`);
      assert.notEqual(r.verdicts[0].status, 'passed', r.verdicts[0].output);
      assert.match(
        r.isolation.memory,
        new RegExp(`^${CAP_MB} MiB for the whole sandbox, all processes together`),
      );
    },
  );
}
