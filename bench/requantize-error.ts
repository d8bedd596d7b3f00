/**
 * Reconstruction error of the fast variant's 4-bit re-quantization, per ggml type and 4-bit form,
 * on a GGUF's own weights: the table the fast variant's form is chosen from (fastVariant.ts).
 *
 *   npm run bench:requantize -- [GGUF]    (default: the installed default model's GGUF)
 *
 * For every 2-D quantized tensor, up to ROWS_PER_TENSOR rows spread evenly over it are dequantized
 * as ggml does, re-quantized in each form (block 32/64/128, symmetric or with zero points), both
 * with the error-minimizing scale search and with plain min/max rounding, and expanded back.
 * The figure is the relative RMS error, sqrt(Σ(w − ŵ)² / Σ w²), over all sampled rows of a type.
 * Writes bench/results/requantize-error.json and prints the table.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { expandBlocks, isCarriedOver } from '../src/core/model/gguf/blockCodecs';
import { ggmlGeometry } from '../src/core/model/gguf/ggmlTypes';
import { FAST_FORM, ggmlWeights } from '../src/core/model/gguf/fastVariant';
import { readGgufFile, readTensorBytes } from '../src/core/model/gguf/ggufFile';
import {
  bitsPerWeight,
  quantizeFourBit,
  quantizeFourBitMinMax,
  reconstructionError,
  type FourBitForm,
} from '../src/core/model/gguf/requantize';
import { ggufPathIn } from '../src/core/model/ladder/installRecord';
import { findLadderModel, DEFAULT_MODEL_ID } from '../src/core/model/ladder/catalog';
import { ladderModelDir } from '../src/core/model/defaults';

const ROOT = resolve(__dirname, '..', '..');
const ROWS_PER_TENSOR = 16;
const FORMS: FourBitForm[] = [32, 64, 128].flatMap((blockSize) =>
  [false, true].map((zeroPoints) => ({ blockSize: blockSize as 32 | 64 | 128, zeroPoints })),
);
const formName = (f: FourBitForm) => `${f.blockSize}${f.zeroPoints ? '-zp' : '-sym'}`;

interface Sums {
  squaredError: number;
  squaredWeight: number;
}

function main(): void {
  const model = findLadderModel(DEFAULT_MODEL_ID)!;
  const path = process.argv[2] ?? ggufPathIn(ladderModelDir(model.id), model);
  const file = readGgufFile(path);
  // type → form → method → sums
  const table = new Map<string, Map<string, { search: Sums; minmax: Sums }>>();
  const tensorsOfType = new Map<string, number>();
  const weightsOfType = new Map<string, number>();
  for (const info of file.tensors.values()) {
    if (info.dims.length !== 2 || !isCarriedOver(info.type)) continue;
    const [cols, rows] = info.dims;
    const bytes = readTensorBytes(file, info);
    const rowBytes = (cols / ggmlGeometry(info.type).blockElements) * ggmlGeometry(info.type).blockBytes;
    const step = Math.max(1, Math.floor(rows / ROWS_PER_TENSOR));
    const picked: Buffer[] = [];
    for (let r = 0; r < rows && picked.length < ROWS_PER_TENSOR; r += step)
      picked.push(bytes.subarray(r * rowBytes, (r + 1) * rowBytes));
    const sample = ggmlWeights(info.type, Buffer.concat(picked), picked.length, cols);
    tensorsOfType.set(info.type, (tensorsOfType.get(info.type) ?? 0) + 1);
    weightsOfType.set(info.type, (weightsOfType.get(info.type) ?? 0) + rows * cols);
    const byForm = table.get(info.type) ?? new Map<string, { search: Sums; minmax: Sums }>();
    table.set(info.type, byForm);
    for (const form of FORMS) {
      if (cols % form.blockSize !== 0) continue;
      const add = (into: Sums, s: Sums) => {
        into.squaredError += s.squaredError;
        into.squaredWeight += s.squaredWeight;
      };
      const entry = byForm.get(formName(form)) ?? {
        search: { squaredError: 0, squaredWeight: 0 },
        minmax: { squaredError: 0, squaredWeight: 0 },
      };
      byForm.set(formName(form), entry);
      add(
        entry.search,
        reconstructionError(sample, expandBlocks(quantizeFourBit(sample, picked.length, cols, form))),
      );
      add(
        entry.minmax,
        reconstructionError(sample, expandBlocks(quantizeFourBitMinMax(sample, picked.length, cols, form))),
      );
    }
    process.stderr.write(`${info.name} ${info.type}\n`);
  }
  const relative = (s: Sums) => Math.round(Math.sqrt(s.squaredError / s.squaredWeight) * 1e5) / 1e5;
  const types = [...table.keys()].map((type) => ({
    type,
    tensors: tensorsOfType.get(type),
    weights: weightsOfType.get(type),
    forms: [...table.get(type)!.entries()].map(([form, e]) => ({
      form,
      bits_per_weight: bitsPerWeight(FORMS.find((f) => formName(f) === form)!),
      relative_rms_error_search: relative(e.search),
      relative_rms_error_minmax: relative(e.minmax),
    })),
  }));
  const report = {
    benchmark: 'requantize-error',
    date: new Date().toISOString(),
    gguf: basename(path),
    rows_per_tensor: ROWS_PER_TENSOR,
    chosen_form: formName(FAST_FORM),
    measure:
      'relative RMS error sqrt(Σ(w−ŵ)²/Σw²) of 4-bit blocks against the GGUF\'s dequantized weights, over up to 16 evenly spaced rows of every 2-D tensor of the type; "search": the error-minimizing scale search of requantize.ts; "minmax": the extreme weight mapped to the end of the code range, plain rounding',
    types,
  };
  const out = join(ROOT, 'bench', 'results');
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'requantize-error.json'), JSON.stringify(report, null, 2) + '\n');
  console.log(`${basename(path)}: relative RMS error, search (min/max rounding)`);
  console.log(`type   tensors  ${FORMS.map((f) => formName(f).padEnd(18)).join('')}`);
  for (const t of types) {
    const cells = FORMS.map((f) => {
      const e = t.forms.find((x) => x.form === formName(f));
      return (e ? `${e.relative_rms_error_search} (${e.relative_rms_error_minmax})` : '—').padEnd(18);
    });
    console.log(`${t.type.padEnd(6)} ${String(t.tensors).padStart(7)}  ${cells.join('')}`);
  }
  console.log(`wrote ${join(out, 'requantize-error.json')}`);
}

main();
