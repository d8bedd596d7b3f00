/**
 * Model download against a real HTTP server on 127.0.0.1 serving a model folder in the hub's URL
 * layout, with dropped connections and corrupted bytes injected.
 */

import { after, afterEach, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { downloadModel, type DownloadProgress } from '../../../src/core/model/download';
import { ModelError } from '../../../src/core/model/types';
import { startHubServer, type HubServer } from '../../servers/hub-server';

let repoDir: string;
let hub: HubServer;
let dest: string;

const Q4_FILES = [
  'config.json',
  'generation_config.json',
  'onnx/model_q4.onnx',
  'onnx/model_q4.onnx_data',
  'special_tokens_map.json',
  'tokenizer.json',
  'tokenizer_config.json',
];

before(async () => {
  repoDir = mkdtempSync(join(tmpdir(), 'stepwise-hub-repo-'));
  mkdirSync(join(repoDir, 'onnx'));
  const write = (p: string, c: string | Buffer) => writeFileSync(join(repoDir, p), c);
  write('config.json', JSON.stringify({ model_type: 'llama', hidden_size: 64 }));
  write('generation_config.json', JSON.stringify({ eos_token_id: 2 }));
  write('special_tokens_map.json', JSON.stringify({ eos_token: '<|im_end|>' }));
  write('tokenizer_config.json', JSON.stringify({ model_max_length: 2048 }));
  write(
    'tokenizer.json',
    JSON.stringify({ model: { vocab: Object.fromEntries([...Array(3000)].map((_, i) => [`t${i}`, i])) } }),
  );
  write('README.md', '# not needed');
  write('onnx/model.onnx', randomBytes(400_000));
  write('onnx/model_q4.onnx', randomBytes(300_000));
  write('onnx/model_q4.onnx_data', randomBytes(2_000_000));
  write('onnx/model_quantized.onnx', randomBytes(200_000));
  hub = await startHubServer(repoDir);
});
after(async () => {
  await hub.close();
  rmSync(repoDir, { recursive: true, force: true });
});
beforeEach(() => {
  dest = mkdtempSync(join(tmpdir(), 'stepwise-download-'));
  hub.requests.length = 0;
  hub.faults.cut = undefined;
  hub.faults.corrupt = undefined;
  hub.faults.noTreeApi = undefined;
});
afterEach(() => rmSync(dest, { recursive: true, force: true }));

const options = () => ({ repoId: hub.repoId, baseUrl: hub.origin, destDir: dest, variant: 'q4' as const });
const same = (p: string) =>
  assert.ok(readFileSync(join(dest, p)).equals(readFileSync(join(repoDir, p))), `${p} differs`);

function rejectsWith(code: ModelError['code'], message?: RegExp) {
  return (err: unknown) => {
    assert.ok(err instanceof ModelError, `expected a ModelError, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    if (message) assert.match(err.message, message);
    return true;
  };
}

test('fetches only the chosen variant with its data file, config and tokenizer files, byte for byte', async () => {
  const progress: DownloadProgress[] = [];
  const result = await downloadModel({ ...options(), onProgress: (p) => progress.push(p) });
  assert.deepEqual(result.files.map((f) => f.path).sort(), Q4_FILES);
  for (const p of Q4_FILES) same(p);
  assert.ok(!existsSync(join(dest, 'onnx/model.onnx')) && !existsSync(join(dest, 'README.md')));
  assert.ok(!existsSync(join(dest, 'onnx/model_q4.onnx_data.part')), 'no .part left behind');
  const total = Q4_FILES.reduce((s, p) => s + statSync(join(repoDir, p)).size, 0);
  assert.equal(result.bytesFetched, total);
  assert.ok(
    progress.every((p, i) => i === 0 || p.bytes >= progress[i - 1].bytes),
    'progress never goes back',
  );
  assert.deepEqual(progress.at(-1), {
    ...progress.at(-1)!,
    bytes: total,
    totalBytes: total,
    filesTotal: Q4_FILES.length,
  });
});

test('a second download finds the verified files in place and fetches nothing', async () => {
  await downloadModel(options());
  hub.requests.length = 0;
  const again = await downloadModel(options());
  assert.ok(again.files.every((f) => f.alreadyPresent));
  assert.equal(again.bytesFetched, 0);
  assert.deepEqual(
    hub.requests.filter((r) => r.path.includes('/resolve/')),
    [],
  );
});

test('an interrupted transfer keeps its .part and the next download resumes it with a Range request', async () => {
  hub.faults.cut = { path: 'onnx/model_q4.onnx_data', afterBytes: 700_000, times: 1 };
  await assert.rejects(
    downloadModel({ ...options(), retries: 0 }),
    rejectsWith('endpoint-unreachable', /model_q4\.onnx_data.*kept/),
  );
  const part = join(dest, 'onnx/model_q4.onnx_data.part');
  const kept = statSync(part).size;
  assert.ok(kept > 0 && kept <= 700_000, `kept ${kept} bytes`);

  hub.requests.length = 0;
  const result = await downloadModel({ ...options(), retries: 0 });
  const data = result.files.find((f) => f.path === 'onnx/model_q4.onnx_data')!;
  assert.equal(data.resumed, true);
  const dataRequest = hub.requests.find((r) => r.path.endsWith('model_q4.onnx_data'))!;
  assert.equal(dataRequest.headers.range, `bytes=${kept}-`);
  assert.equal(data.fetchedBytes, 2_000_000 - kept, 'only the missing bytes were fetched');
  same('onnx/model_q4.onnx_data');
  assert.ok(!existsSync(part));
});

test('a dropped connection is resumed within the same download when retries are allowed', async () => {
  hub.faults.cut = { path: 'onnx/model_q4.onnx', afterBytes: 100_000, times: 1 };
  const result = await downloadModel(options());
  assert.equal(result.files.find((f) => f.path === 'onnx/model_q4.onnx')!.resumed, true);
  same('onnx/model_q4.onnx');
  const ranges = hub.requests.filter((r) => r.path.endsWith('model_q4.onnx')).map((r) => r.headers.range);
  assert.equal(ranges.length, 2);
  assert.match(String(ranges[1]), /^bytes=\d+-$/);
});

test('bytes that do not match the listed sha256 fail clearly and leave nothing behind', async () => {
  hub.faults.corrupt = 'onnx/model_q4.onnx_data';
  await assert.rejects(
    downloadModel(options()),
    rejectsWith(
      'download-integrity',
      /onnx\/model_q4\.onnx_data does not match the repository listing \(expected sha256 [0-9a-f]{64}, got [0-9a-f]{64}\)/,
    ),
  );
  assert.ok(!existsSync(join(dest, 'onnx/model_q4.onnx_data')));
  assert.ok(!existsSync(join(dest, 'onnx/model_q4.onnx_data.part')));
});

test('small files are checked against their git blob id', async () => {
  hub.faults.corrupt = 'config.json';
  await assert.rejects(
    downloadModel(options()),
    rejectsWith('download-integrity', /config\.json .*git blob id/),
  );
});

test('a variant the repository lacks names the variants it has', async () => {
  await assert.rejects(downloadModel({ ...options(), variant: 'fp16' }), (err: unknown) => {
    rejectsWith('model-folder', /onnx\/model_fp16\.onnx/)(err);
    assert.equal((err as ModelError).hint, 'Variants it has: fp32, q8, q4.');
    return true;
  });
});

test('an unknown repository is endpoint-not-found with the id in the message', async () => {
  await assert.rejects(
    downloadModel({ ...options(), repoId: 'nobody/nothing' }),
    rejectsWith('endpoint-not-found', /"nobody\/nothing" at revision "main"/),
  );
});

test('a server without the tree API is listed through the model-info siblings, hashes included', async () => {
  hub.faults.noTreeApi = true;
  const result = await downloadModel(options());
  assert.deepEqual(result.files.map((f) => f.path).sort(), Q4_FILES);
  for (const p of Q4_FILES) same(p);
  assert.ok(hub.requests.some((r) => r.path.includes('/revision/main?blobs=true')));
  hub.faults.corrupt = 'onnx/model_q4.onnx';
  await assert.rejects(
    downloadModel({ ...options(), destDir: join(dest, 'again') }),
    rejectsWith('download-integrity'),
  );
});

test('an explicit file list fetches exactly those files', async () => {
  const result = await downloadModel({ ...options(), files: ['config.json', 'README.md'] });
  assert.deepEqual(result.files.map((f) => f.path).sort(), ['README.md', 'config.json']);
  same('README.md');
});

test('cancelling stops the download with "aborted" and keeps the part for later', async () => {
  const controller = new AbortController();
  await assert.rejects(
    downloadModel({
      ...options(),
      signal: controller.signal,
      onProgress: (p) => {
        if (p.file === 'onnx/model_q4.onnx_data' && p.fileBytes > 0) controller.abort();
      },
    }),
    rejectsWith('aborted'),
  );
  assert.ok(statSync(join(dest, 'onnx/model_q4.onnx_data.part')).size > 0);
  assert.ok(!existsSync(join(dest, 'onnx/model_q4.onnx_data')));
});

test('cancelling just as the last byte of a file arrives still ends the download', async () => {
  const controller = new AbortController();
  await assert.rejects(
    downloadModel({
      ...options(),
      signal: controller.signal,
      onProgress: (p) => {
        if (p.file === 'onnx/model_q4.onnx_data' && p.fileBytes === p.fileTotal) controller.abort();
      },
    }),
    rejectsWith('aborted'),
  );
});
