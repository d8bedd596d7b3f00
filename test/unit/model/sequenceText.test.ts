import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SequenceText } from '../../../src/core/model/onnx/sequenceText';

// A toy vocabulary: token id -> text; ids 100/101 are the two halves of a UTF-8 character.
const vocab: Record<number, string> = { 1: 'Hel', 2: 'lo', 3: ' wor', 4: 'ld', 5: '\n', 6: '##', 7: ' end' };
const decode = (ids: number[]) => {
  const bytes: number[] = [];
  for (const id of ids) {
    if (id === 100) bytes.push(0xc3);
    else if (id === 101) bytes.push(0xa9);
    else bytes.push(...Buffer.from(vocab[id]));
  }
  return Buffer.from(bytes).toString('utf8');
};

function run(ids: number[], stops: string[] = []) {
  const seq = new SequenceText(decode, stops);
  let streamed = '';
  let stopped = false;
  for (const id of ids) {
    const r = seq.push(id, -1);
    streamed += r.streamed;
    if (r.stopped) {
      stopped = true;
      break;
    }
  }
  if (!stopped) streamed += seq.flush();
  return { seq, streamed, stopped };
}

test('streams the decoded text and never half a UTF-8 character', () => {
  const seq = new SequenceText(decode);
  assert.equal(seq.push(1, null).streamed, 'Hel');
  assert.equal(seq.push(100, null).streamed, '');
  assert.equal(seq.push(101, null).streamed, 'é');
  assert.equal(seq.finalText, 'Helé');
});

test('a stop sequence ends the sequence and is cut from the text and the stream', () => {
  const { seq, streamed, stopped } = run([1, 2, 3, 4, 5, 6, 7], ['\n##']);
  assert.ok(stopped);
  assert.equal(seq.finalText, 'Hello world');
  assert.equal(streamed, 'Hello world');
  assert.deepEqual(
    seq.finalTokens.map((t) => t.id),
    [1, 2, 3, 4],
  );
});

test('text that might start a stop sequence is held back, then released when it does not', () => {
  const seq = new SequenceText(decode, ['\n##']);
  seq.push(1, null);
  assert.equal(seq.push(5, null).streamed, '');
  assert.equal(seq.push(7, null).streamed, '\n end');
});

test('a stop sequence spanning tokens, or inside one token, is found', () => {
  assert.equal(run([1, 2, 3, 4], ['lo w']).seq.finalText, 'Hel');
  assert.equal(run([1, 2, 3, 4], ['or']).seq.finalText, 'Hello w');
  assert.equal(run([1, 2, 3, 4], ['xyz']).seq.finalText, 'Hello world');
});
