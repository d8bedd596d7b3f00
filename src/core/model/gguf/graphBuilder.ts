/**
 * Builds an ONNX graph node by node. Large initializers (weights) are appended to the external
 * data file as they are made, so a converter holds one tensor at a time, not the whole model;
 * small ones (shapes, axes) stay inline.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { basename } from 'node:path';
import {
  DataType,
  encodeModel,
  type AttributeValue,
  type DataTypeId,
  type NodeSpec,
  type TensorSpec,
  type ValueInfoSpec,
} from './onnxProto';

/** Weights start on page boundaries so that onnxruntime can map the file instead of copying it. */
const DATA_ALIGNMENT = 4096;
/** Initializers smaller than this stay inside the .onnx file. */
const INLINE_LIMIT = 1024;

export class GraphBuilder {
  readonly nodes: NodeSpec[] = [];
  readonly initializers: TensorSpec[] = [];
  readonly inputs: ValueInfoSpec[] = [];
  readonly outputs: ValueInfoSpec[] = [];
  private readonly names = new Map<string, number>();
  private readonly dataFd: number;
  private dataLength = 0;
  /** Constants already emitted, by content, so each shape or axis list exists once. */
  private readonly constants = new Map<string, string>();

  constructor(private readonly dataPath: string) {
    this.dataFd = openSync(dataPath, 'w');
  }

  /** A name not used before, from a readable stem. */
  fresh(stem: string): string {
    const n = this.names.get(stem) ?? 0;
    this.names.set(stem, n + 1);
    return n === 0 ? stem : `${stem}_${n}`;
  }

  input(name: string, elemType: DataTypeId, dims: (number | string)[]): string {
    this.inputs.push({ name, elemType, dims });
    return name;
  }

  output(name: string, elemType: DataTypeId, dims: (number | string)[]): void {
    this.outputs.push({ name, elemType, dims });
  }

  /** A weight; bytes go to the external data file unless tiny. */
  initializer(name: string, dataType: DataTypeId, dims: number[], bytes: Uint8Array): string {
    if (bytes.length < INLINE_LIMIT) {
      this.initializers.push({ name, dataType, dims, data: bytes.slice() });
      return name;
    }
    const padding = (DATA_ALIGNMENT - (this.dataLength % DATA_ALIGNMENT)) % DATA_ALIGNMENT;
    if (padding > 0) this.write(new Uint8Array(padding));
    const offset = this.dataLength;
    this.write(bytes);
    this.initializers.push({
      name,
      dataType,
      dims,
      data: { location: basename(this.dataPath), offset, length: bytes.length },
    });
    return name;
  }

  floats(name: string, dims: number[], values: Float32Array): string {
    return this.initializer(
      name,
      DataType.FLOAT,
      dims,
      new Uint8Array(values.buffer, values.byteOffset, values.byteLength),
    );
  }

  /** An int64 constant (shapes, axes), shared between the nodes that need the same values. */
  int64s(values: number[], scalar = false): string {
    const key = `i64:${scalar}:${values.join(',')}`;
    const known = this.constants.get(key);
    if (known) return known;
    const name = this.fresh(`const_i64_${values.join('_').replace(/-/g, 'm')}`);
    const bytes = new Uint8Array(new BigInt64Array(values.map(BigInt)).buffer);
    this.initializers.push({
      name,
      dataType: DataType.INT64,
      dims: scalar ? [] : [values.length],
      data: bytes,
    });
    this.constants.set(key, name);
    return name;
  }

  /** Adds a node; returns its output names (fresh ones unless given). */
  op(
    opType: string,
    inputs: string[],
    options: {
      attributes?: Record<string, AttributeValue>;
      domain?: string;
      outputs?: number | string[];
      name?: string;
    } = {},
  ): string[] {
    const name = this.fresh(options.name ?? opType);
    const outputs = Array.isArray(options.outputs)
      ? options.outputs
      : Array.from({ length: options.outputs ?? 1 }, (_, i) => (i === 0 ? `${name}/out` : `${name}/out${i}`));
    this.nodes.push({
      opType,
      domain: options.domain,
      name,
      inputs,
      outputs,
      attributes: options.attributes,
    });
    return outputs;
  }

  /** Serialises the graph; closes the data file. */
  finish(graphName: string, metadata: Record<string, string>): Uint8Array {
    closeSync(this.dataFd);
    return encodeModel({
      producer: 'stepwise-gguf-converter',
      opsets: [
        // 23 for Attention with grouped key/value heads and a past.
        { domain: '', version: 23 },
        { domain: 'com.microsoft', version: 1 },
      ],
      graphName,
      nodes: this.nodes,
      initializers: this.initializers,
      inputs: this.inputs,
      outputs: this.outputs,
      metadata,
    });
  }

  /** Closes the data file without building a model (on failure). */
  abandon(): void {
    try {
      closeSync(this.dataFd);
    } catch {
      // already closed
    }
  }

  get externalBytes(): number {
    return this.dataLength;
  }

  private write(bytes: Uint8Array): void {
    let done = 0;
    while (done < bytes.length) done += writeSync(this.dataFd, bytes, done, bytes.length - done);
    this.dataLength += bytes.length;
  }
}
