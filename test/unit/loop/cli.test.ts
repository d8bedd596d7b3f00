import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

// `stepwise loop` through the module the CLI registers, in its own process, as a user runs it.
const RUNNER = `
const { loopCommand } = require(${JSON.stringify(path.resolve(__dirname, '../../../src/cli/commands/loop.js'))});
const { UsageError } = require(${JSON.stringify(path.resolve(__dirname, '../../../src/cli/command.js'))});
loopCommand.run(process.argv.slice(1)).then((code) => { process.exitCode = code; }, (err) => {
  process.stderr.write(err.message + '\\n');
  process.exitCode = err instanceof UsageError ? 2 : 1;
});
`;

test('a wrong --progress is refused before any model or trainer is looked for', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-loop-cli-'));
  const data = path.join(dir, 'problems.jsonl');
  fs.writeFileSync(data, JSON.stringify({ problem: 'What is $2+3$?', answer: '5' }) + '\n');
  const r = spawnSync(
    process.execPath,
    [
      '-e',
      RUNNER,
      '--', // the rest are the command's options, not node's
      '--data',
      data,
      '--workspace',
      dir,
      '--progress',
      'xml',
      '--model-dir',
      path.join(dir, 'none'),
    ],
    { encoding: 'utf8' },
  );
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /--progress must be text or json/);
  assert.ok(!fs.existsSync(path.join(dir, '.stepwise')), 'nothing was written to the workspace');
});
