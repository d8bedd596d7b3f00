// Runs every compiled unit test (out/test/unit/**/*.test.js) with node's test runner.
// With STEPWISE_UNIT_TAP set, a TAP copy of the results is written there for the summary.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

function find(dir) {
  let found = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) found = found.concat(find(p));
    else if (name.endsWith('.test.js')) found.push(p);
  }
  return found;
}
const filter = process.argv[2];
const files = find('out/test/unit')
  .filter((f) => !filter || f.includes(filter))
  .sort();
const reporters = ['--test-reporter=spec', '--test-reporter-destination=stdout'];
if (process.env.STEPWISE_UNIT_TAP)
  reporters.push('--test-reporter=tap', `--test-reporter-destination=${process.env.STEPWISE_UNIT_TAP}`);
const r = spawnSync(process.execPath, ['--test', '--test-concurrency=1', ...reporters, ...files], {
  stdio: 'inherit',
});
process.exit(r.status ?? 1);
