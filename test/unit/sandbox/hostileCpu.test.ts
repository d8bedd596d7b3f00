/**
 * Hostile case, issue 40 class 3 (CPU): the code under test runs on the cores the setting allows
 * (default one), and cannot widen its own CPU affinity to every core of the machine.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as os from 'node:os';
import { runSuite } from '../../../src/core/sandbox/index';

const linux = process.platform === 'linux';
const cores = os.availableParallelism();

for (const cpuCores of [undefined, 2]) {
  test(
    `cpu: the code under test runs on ${cpuCores ? `the ${cpuCores} cores it is given` : 'one core by default'} and cannot take the others`,
    { skip: !linux || cores <= (cpuCores ?? 1) },
    async () => {
      const want = cpuCores ?? 1;
      const r = await runSuite({
        language: 'python',
        code: '',
        cpuCores,
        tests: [
          {
            name: 'test_cores',
            source: `def test_cores():
    import os
    assert len(os.sched_getaffinity(0)) == ${want}, os.sched_getaffinity(0)
    try:
        os.sched_setaffinity(0, range(${cores}))
    except OSError:
        pass
    assert len(os.sched_getaffinity(0)) == ${want}, "widened to %s" % os.sched_getaffinity(0)
`,
          },
        ],
      });
      assert.ok(r.isolation.isolated, r.isolation.summary);
      assert.equal(r.verdicts[0].status, 'passed', r.verdicts[0].output);
      assert.match(r.isolation.cpu, new RegExp(`^pinned to ${want} of ${cores} cores`));
    },
  );
}
