import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadStageChain, stagesDigest } from '../../../src/core/tests/stages';
import { resourcePath } from '../../../src/core/resources';
import { scratchDir } from '../scratchDir';

function copyWith(
  change: (chain: Record<string, unknown> & { stages: Record<string, unknown>[] }) => void,
): string {
  const chain = JSON.parse(fs.readFileSync(resourcePath('prompts', 'code', 'stages.json'), 'utf8'));
  change(chain);
  const file = path.join(scratchDir('stepwise-stages-'), 'stages.json');
  fs.writeFileSync(file, JSON.stringify(chain));
  return file;
}

test('the stage digest changes with any task, so a resumed evaluation never mixes prompt versions', () => {
  const shipped = stagesDigest();
  assert.match(shipped, /^[0-9a-f]{16}$/);
  assert.equal(stagesDigest(copyWith(() => undefined)), shipped, 'the same definitions, the same digest');
  const edited = copyWith((c) => {
    c.stages[2].testWriterTask = `${String(c.stages[2].testWriterTask)} Be brief.`;
  });
  assert.notEqual(stagesDigest(edited), shipped);
});

test('stage definitions of the old single-prompt form are refused with the file and the field named', () => {
  const old = copyWith((c) => {
    c.version = 1;
    delete c.opening;
  });
  assert.throws(
    () => loadStageChain(old),
    (err: Error) => {
      assert.match(
        err.message,
        new RegExp(`stage definitions in ${old.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} are invalid`),
      );
      assert.match(err.message, /opening/);
      return true;
    },
  );
});
