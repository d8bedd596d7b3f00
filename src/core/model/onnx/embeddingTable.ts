/**
 * A token embedding table kept outside the ONNX graph, in the GGUF's own block format, read one
 * row per token from disk. Only a few hundred bytes are needed per token, so the table costs no
 * resident memory (onnxruntime would hold it whole, 8 bits per weight where the GGUF has 4.5–5.5)
 * and every row is exactly what llama.cpp's lookup gives.
 *
 * File: a 4096-byte header holding JSON ({format, type, rows, cols, rowBytes}) padded with spaces,
 * then the rows, each `rowBytes` long.
 */
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { dequantizeRows } from '../gguf/blockCodecs';
import { ggmlByteLength, ggmlTypeName, GGML_TYPES, type GgmlTypeName } from '../gguf/ggmlTypes';
import { ModelError } from '../types';

const HEADER_BYTES = 4096;
const FORMAT = 'stepwise-embedding-table-1';

export interface EmbeddingTableInfo {
  type: GgmlTypeName;
  rows: number;
  cols: number;
}

/** Writes a table from the GGUF tensor's bytes (rows × cols, rows being tokens). */
export function writeEmbeddingTable(path: string, info: EmbeddingTableInfo, bytes: Uint8Array): void {
  const rowBytes = ggmlByteLength(info.type, info.cols);
  if (bytes.length !== rowBytes * info.rows)
    throw new Error(`The embedding has ${bytes.length} bytes, not ${rowBytes} × ${info.rows}.`);
  const header = Buffer.alloc(HEADER_BYTES, ' ');
  header.write(JSON.stringify({ format: FORMAT, ...info, rowBytes }), 'utf8');
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, header);
    let done = 0;
    while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
  } finally {
    closeSync(fd);
  }
}

export class EmbeddingTable {
  private constructor(
    private fd: number | undefined,
    readonly info: EmbeddingTableInfo,
    private readonly rowBytes: number,
  ) {}

  static open(path: string): EmbeddingTable {
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch (e) {
      throw new ModelError(
        `The token embedding table ${path} cannot be opened: ${(e as Error).message}.`,
        'model-folder',
        'Convert the GGUF again (stepwise convert-gguf); the folder is incomplete.',
      );
    }
    const header = Buffer.alloc(HEADER_BYTES);
    readSync(fd, header, 0, HEADER_BYTES, 0);
    let parsed: { format?: string; type?: string; rows?: number; cols?: number; rowBytes?: number };
    try {
      parsed = JSON.parse(header.toString('utf8').trim()) as typeof parsed;
    } catch {
      parsed = {};
    }
    const type =
      parsed.type && parsed.type in GGML_TYPES
        ? ggmlTypeName(GGML_TYPES[parsed.type as GgmlTypeName])
        : undefined;
    if (parsed.format !== FORMAT || !type || !parsed.rows || !parsed.cols || !parsed.rowBytes) {
      closeSync(fd);
      throw new ModelError(
        `${path} is not a token embedding table.`,
        'model-folder',
        'Convert the GGUF again (stepwise convert-gguf).',
      );
    }
    return new EmbeddingTable(fd, { type, rows: parsed.rows, cols: parsed.cols }, parsed.rowBytes);
  }

  /** Rows of `ids`, one after another ([ids.length, cols]). */
  lookup(ids: ArrayLike<number>): Float32Array {
    if (this.fd === undefined)
      throw new ModelError('The embedding table is closed.', 'internal', 'Load the model again.');
    const { rows, cols, type } = this.info;
    const out = new Float32Array(ids.length * cols);
    const raw = Buffer.alloc(this.rowBytes);
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      if (!Number.isInteger(id) || id < 0 || id >= rows) {
        throw new ModelError(
          `Token id ${id} is outside the vocabulary of ${rows}.`,
          'internal',
          'Use ids from this model’s tokenizer.',
        );
      }
      readSync(this.fd, raw, 0, this.rowBytes, HEADER_BYTES + id * this.rowBytes);
      out.set(dequantizeRows(type, raw, 1, cols), i * cols);
    }
    return out;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
