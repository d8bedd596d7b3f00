import { test } from 'node:test';
import assert from 'node:assert/strict';
import { main } from '../../../src/cli/main';

test('stepwise --help lists the commands and exits 0', async () => {
  const chunks: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((c: string) => (chunks.push(String(c)), true)) as typeof process.stdout.write;
  try {
    assert.equal(await main(['--help']), 0);
  } finally {
    process.stdout.write = write;
  }
  assert.match(chunks.join(''), /Usage: stepwise <command>/);
});

test('an unknown command exits 2', async () => {
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = (() => true) as typeof process.stderr.write;
  try {
    assert.equal(await main(['no-such-command']), 2);
  } finally {
    process.stderr.write = write;
  }
});
