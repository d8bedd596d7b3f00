/**
 * A GGUF file's header, metadata and tensor directory (format versions 2 and 3), read with
 * positional reads so a file of gigabytes is never held in memory; tensor bytes are read on demand.
 *
 * Layout: magic "GGUF", uint32 version, uint64 tensor count, uint64 metadata count, the metadata
 * key/value pairs, the tensor infos (name, dims with the fastest-varying first, type, offset), then
 * padding to `general.alignment` (32 when absent) and the tensor data.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { ggmlByteLength, ggmlTypeName, type GgmlTypeName } from './ggmlTypes';

export type GgufValue = number | bigint | boolean | string | GgufValue[];

export interface GgufTensorInfo {
  name: string;
  /** Dimensions as ggml stores them: dims[0] varies fastest (for a weight: the input size). */
  dims: number[];
  type: GgmlTypeName;
  /** Absolute byte offset in the file. */
  offset: number;
  byteLength: number;
}

export interface GgufFile {
  path: string;
  version: number;
  metadata: Map<string, GgufValue>;
  tensors: Map<string, GgufTensorInfo>;
  fileSize: number;
}

/** A malformed or unsupported file; the message says what was found. */
export class GgufFormatError extends Error {}

enum ValueType {
  U8 = 0,
  I8 = 1,
  U16 = 2,
  I16 = 3,
  U32 = 4,
  I32 = 5,
  F32 = 6,
  Bool = 7,
  String = 8,
  Array = 9,
  U64 = 10,
  I64 = 11,
  F64 = 12,
}

/** Sequential reads over a file descriptor through a growing window. */
class Cursor {
  private buffer = Buffer.alloc(0);
  private bufferStart = 0;
  position = 0;

  constructor(
    private readonly fd: number,
    private readonly size: number,
  ) {}

  private ensure(bytes: number): void {
    const end = this.position + bytes;
    if (end > this.size) throw new GgufFormatError('The file ends in the middle of its header.');
    if (this.position >= this.bufferStart && end <= this.bufferStart + this.buffer.length) return;
    const length = Math.min(this.size - this.position, Math.max(bytes, 4 << 20));
    this.buffer = Buffer.alloc(length);
    readSync(this.fd, this.buffer, 0, length, this.position);
    this.bufferStart = this.position;
  }

  private take(bytes: number): number {
    this.ensure(bytes);
    const at = this.position - this.bufferStart;
    this.position += bytes;
    return at;
  }

  // take() may replace the buffer, so it runs before the buffer is read.
  private read<T>(bytes: number, get: (b: Buffer, at: number) => T): T {
    const at = this.take(bytes);
    return get(this.buffer, at);
  }

  u8 = () => this.read(1, (b, at) => b.readUInt8(at));
  i8 = () => this.read(1, (b, at) => b.readInt8(at));
  u16 = () => this.read(2, (b, at) => b.readUInt16LE(at));
  i16 = () => this.read(2, (b, at) => b.readInt16LE(at));
  u32 = () => this.read(4, (b, at) => b.readUInt32LE(at));
  i32 = () => this.read(4, (b, at) => b.readInt32LE(at));
  f32 = () => this.read(4, (b, at) => b.readFloatLE(at));
  f64 = () => this.read(8, (b, at) => b.readDoubleLE(at));
  u64 = () => this.read(8, (b, at) => b.readBigUInt64LE(at));
  i64 = () => this.read(8, (b, at) => b.readBigInt64LE(at));

  /** A uint64 that must fit a JS number (counts, lengths, offsets). */
  count(what: string): number {
    const v = this.u64();
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new GgufFormatError(`Implausible ${what}: ${v}.`);
    return Number(v);
  }

  string(): string {
    const length = this.count('string length');
    return this.read(length, (b, at) => b.toString('utf8', at, at + length));
  }
}

function readValue(cursor: Cursor, type: number): GgufValue {
  switch (type) {
    case ValueType.U8:
      return cursor.u8();
    case ValueType.I8:
      return cursor.i8();
    case ValueType.U16:
      return cursor.u16();
    case ValueType.I16:
      return cursor.i16();
    case ValueType.U32:
      return cursor.u32();
    case ValueType.I32:
      return cursor.i32();
    case ValueType.F32:
      return cursor.f32();
    case ValueType.F64:
      return cursor.f64();
    case ValueType.Bool:
      return cursor.u8() !== 0;
    case ValueType.String:
      return cursor.string();
    case ValueType.U64: {
      const v = cursor.u64();
      return v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
    }
    case ValueType.I64: {
      const v = cursor.i64();
      return v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(v) : v;
    }
    case ValueType.Array: {
      const itemType = cursor.u32();
      const length = cursor.count('array length');
      const items: GgufValue[] = new Array<GgufValue>(length);
      for (let i = 0; i < length; i++) items[i] = readValue(cursor, itemType);
      return items;
    }
    default:
      throw new GgufFormatError(`Unknown metadata value type ${type}.`);
  }
}

/** Reads the header, metadata and tensor directory of a GGUF file. */
export function readGgufFile(path: string): GgufFile {
  const fd = openSync(path, 'r');
  try {
    const fileSize = fstatSync(fd).size;
    const cursor = new Cursor(fd, fileSize);
    if (fileSize < 24) throw new GgufFormatError('The file is too short to be GGUF.');
    const magic = [cursor.u8(), cursor.u8(), cursor.u8(), cursor.u8()];
    if (String.fromCharCode(...magic) !== 'GGUF') {
      throw new GgufFormatError('The file does not start with "GGUF"; it is not a GGUF model.');
    }
    const version = cursor.u32();
    if (version !== 2 && version !== 3) {
      throw new GgufFormatError(`GGUF version ${version} is not supported (only 2 and 3).`);
    }
    const tensorCount = cursor.count('tensor count');
    const metadataCount = cursor.count('metadata count');
    const metadata = new Map<string, GgufValue>();
    for (let i = 0; i < metadataCount; i++) {
      const key = cursor.string();
      metadata.set(key, readValue(cursor, cursor.u32()));
    }
    const infos: Omit<GgufTensorInfo, 'offset' | 'byteLength'>[] = [];
    const relativeOffsets: number[] = [];
    for (let i = 0; i < tensorCount; i++) {
      const name = cursor.string();
      const nDims = cursor.u32();
      if (nDims < 1 || nDims > 4) throw new GgufFormatError(`Tensor ${name} has ${nDims} dimensions.`);
      const dims = Array.from({ length: nDims }, () => cursor.count('dimension'));
      const typeId = cursor.u32();
      const type = ggmlTypeName(typeId);
      if (!type) throw new GgufFormatError(`Tensor ${name} has the unknown ggml type ${typeId}.`);
      infos.push({ name, dims, type });
      relativeOffsets.push(cursor.count('tensor offset'));
    }
    const alignment = Number(metadata.get('general.alignment') ?? 32);
    if (!Number.isInteger(alignment) || alignment <= 0) {
      throw new GgufFormatError(`general.alignment is ${alignment}; it must be a positive integer.`);
    }
    const dataStart = Math.ceil(cursor.position / alignment) * alignment;
    const tensors = new Map<string, GgufTensorInfo>();
    infos.forEach((info, i) => {
      const elements = info.dims.reduce((a, b) => a * b, 1);
      let byteLength: number;
      try {
        byteLength = ggmlByteLength(info.type, elements);
      } catch (e) {
        throw new GgufFormatError(`Tensor ${info.name}: ${(e as Error).message}`);
      }
      const offset = dataStart + relativeOffsets[i];
      if (relativeOffsets[i] % alignment !== 0 || offset + byteLength > fileSize) {
        throw new GgufFormatError(
          `Tensor ${info.name} lies outside the file (offset ${offset}, ${byteLength} bytes, file ${fileSize} bytes); the file is truncated or damaged.`,
        );
      }
      tensors.set(info.name, { ...info, offset, byteLength });
    });
    return { path, version, metadata, tensors, fileSize };
  } finally {
    closeSync(fd);
  }
}

/** The raw bytes of one tensor. */
export function readTensorBytes(file: GgufFile, tensor: GgufTensorInfo): Buffer {
  const fd = openSync(file.path, 'r');
  try {
    const bytes = Buffer.alloc(tensor.byteLength);
    let done = 0;
    while (done < bytes.length) {
      const n = readSync(fd, bytes, done, bytes.length - done, tensor.offset + done);
      if (n === 0) throw new GgufFormatError(`The file ends inside tensor ${tensor.name}.`);
      done += n;
    }
    return bytes;
  } finally {
    closeSync(fd);
  }
}
