import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KeyedLoad } from '../../../src/vscode/keyedLoad';

class Loaded {
  disposed = false;
  constructor(readonly key: string) {}
  async dispose(): Promise<void> {
    this.disposed = true;
  }
}

test('the same key gives the same model; a new key disposes the old one and loads again', async () => {
  const failures: string[] = [];
  const loads = new KeyedLoad<Loaded>((e) => failures.push(e.message));
  let count = 0;
  const load = (key: string) => () => {
    count++;
    return Promise.resolve(new Loaded(key));
  };
  const a = await loads.get('a', load('a'));
  assert.equal(await loads.get('a', load('a')), a);
  assert.equal(count, 1);
  const b = await loads.get('b', load('b'));
  assert.equal(b.key, 'b');
  await new Promise((r) => setImmediate(r));
  assert.equal(a.disposed, true, 'the replaced model is disposed');
  loads.unload();
  await new Promise((r) => setImmediate(r));
  assert.equal(b.disposed, true);
  assert.deepEqual(failures, []);
});

test('a failed load is reported and tried again on the next use', async () => {
  const failures: string[] = [];
  const loads = new KeyedLoad<Loaded>((e) => failures.push(e.message));
  await assert.rejects(
    loads.get('a', () => Promise.reject(new Error('no model.onnx'))),
    /no model.onnx/,
  );
  assert.deepEqual(failures, ['no model.onnx']);
  const a = await loads.get('a', () => Promise.resolve(new Loaded('a')));
  assert.equal(a.key, 'a');
});
