/**
 * A protobuf encoder for the few ONNX messages a converted model needs (ModelProto, GraphProto,
 * NodeProto, AttributeProto, TensorProto with external data, ValueInfoProto). Field numbers are
 * those of onnx/onnx.proto3. Messages are built bottom-up as byte arrays; a model of a few hundred
 * nodes is a few hundred kilobytes, since the weights live in the external data file.
 */

/** ONNX TensorProto.DataType values used here. */
export const DataType = {
  FLOAT: 1,
  UINT8: 2,
  INT8: 3,
  INT32: 6,
  INT64: 7,
  BOOL: 9,
  FLOAT16: 10,
} as const;
export type DataTypeId = (typeof DataType)[keyof typeof DataType];

/** AttributeProto.AttributeType values. */
const AttributeType = { FLOAT: 1, INT: 2, STRING: 3, FLOATS: 6, INTS: 7 } as const;

type Chunk = Uint8Array;

class Writer {
  private readonly chunks: Chunk[] = [];
  private length = 0;

  private push(chunk: Chunk): void {
    this.chunks.push(chunk);
    this.length += chunk.length;
  }

  private varint(value: number | bigint): void {
    let v = BigInt.asUintN(64, BigInt(value));
    const bytes: number[] = [];
    do {
      let byte = Number(v & 0x7fn);
      v >>= 7n;
      if (v !== 0n) byte |= 0x80;
      bytes.push(byte);
    } while (v !== 0n);
    this.push(Uint8Array.from(bytes));
  }

  private tag(field: number, wireType: number): void {
    this.varint((field << 3) | wireType);
  }

  int(field: number, value: number | bigint): this {
    this.tag(field, 0);
    this.varint(value);
    return this;
  }

  float(field: number, value: number): this {
    this.tag(field, 5);
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, value, true);
    this.push(b);
    return this;
  }

  bytes(field: number, value: Chunk): this {
    this.tag(field, 2);
    this.varint(value.length);
    this.push(value);
    return this;
  }

  string(field: number, value: string): this {
    return this.bytes(field, new TextEncoder().encode(value));
  }

  message(field: number, value: Writer): this {
    return this.bytes(field, value.finish());
  }

  packedInts(field: number, values: readonly number[]): this {
    const inner = new Writer();
    for (const v of values) inner.varint(v);
    return this.bytes(field, inner.finish());
  }

  packedFloats(field: number, values: readonly number[]): this {
    const b = new Uint8Array(4 * values.length);
    const view = new DataView(b.buffer);
    values.forEach((v, i) => view.setFloat32(4 * i, v, true));
    return this.bytes(field, b);
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.length);
    let at = 0;
    for (const c of this.chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  }
}

export type AttributeValue = number | string | number[] | { floats: number[] } | { float: number };

export interface NodeSpec {
  opType: string;
  domain?: string;
  name: string;
  inputs: string[];
  outputs: string[];
  attributes?: Record<string, AttributeValue>;
}

export interface TensorSpec {
  name: string;
  dataType: DataTypeId;
  dims: number[];
  /** Inline bytes, or where the bytes lie in the external data file. */
  data: Uint8Array | { location: string; offset: number; length: number };
}

export interface ValueInfoSpec {
  name: string;
  elemType: DataTypeId;
  /** Numbers are fixed sizes, strings are named symbolic dimensions. */
  dims: (number | string)[];
}

export interface ModelSpec {
  producer: string;
  opsets: { domain: string; version: number }[];
  graphName: string;
  nodes: NodeSpec[];
  initializers: TensorSpec[];
  inputs: ValueInfoSpec[];
  outputs: ValueInfoSpec[];
  metadata?: Record<string, string>;
}

function attribute(name: string, value: AttributeValue): Writer {
  const w = new Writer().string(1, name);
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) throw new Error(`Attribute ${name}: use { float } for ${value}.`);
    return w.int(20, AttributeType.INT).int(3, value);
  }
  if (typeof value === 'string') return w.int(20, AttributeType.STRING).string(4, value);
  if (Array.isArray(value)) return w.int(20, AttributeType.INTS).packedInts(8, value);
  if ('floats' in value) return w.int(20, AttributeType.FLOATS).packedFloats(7, value.floats);
  return w.int(20, AttributeType.FLOAT).float(2, value.float);
}

function node(spec: NodeSpec): Writer {
  const w = new Writer();
  for (const i of spec.inputs) w.string(1, i);
  for (const o of spec.outputs) w.string(2, o);
  w.string(3, spec.name).string(4, spec.opType);
  for (const [k, v] of Object.entries(spec.attributes ?? {})) w.message(5, attribute(k, v));
  if (spec.domain) w.string(7, spec.domain);
  return w;
}

function entry(key: string, value: string): Writer {
  return new Writer().string(1, key).string(2, value);
}

function tensor(spec: TensorSpec): Writer {
  const w = new Writer();
  if (spec.dims.length > 0) w.packedInts(1, spec.dims);
  w.int(2, spec.dataType).string(8, spec.name);
  if (spec.data instanceof Uint8Array) return w.bytes(9, spec.data);
  w.message(13, entry('location', spec.data.location));
  w.message(13, entry('offset', String(spec.data.offset)));
  w.message(13, entry('length', String(spec.data.length)));
  return w.int(14, 1);
}

function valueInfo(spec: ValueInfoSpec): Writer {
  const shape = new Writer();
  for (const d of spec.dims) {
    shape.message(1, typeof d === 'number' ? new Writer().int(1, d) : new Writer().string(2, d));
  }
  const tensorType = new Writer().int(1, spec.elemType).message(2, shape);
  return new Writer().string(1, spec.name).message(2, new Writer().message(1, tensorType));
}

/** Serialises a whole model to ModelProto bytes. */
export function encodeModel(spec: ModelSpec): Uint8Array {
  const graph = new Writer();
  for (const n of spec.nodes) graph.message(1, node(n));
  graph.string(2, spec.graphName);
  for (const t of spec.initializers) graph.message(5, tensor(t));
  for (const i of spec.inputs) graph.message(11, valueInfo(i));
  for (const o of spec.outputs) graph.message(12, valueInfo(o));
  const model = new Writer().int(1, 10).string(2, spec.producer).message(7, graph);
  for (const o of spec.opsets) model.message(8, new Writer().string(1, o.domain).int(2, o.version));
  for (const [k, v] of Object.entries(spec.metadata ?? {})) model.message(14, entry(k, v));
  return model.finish();
}
