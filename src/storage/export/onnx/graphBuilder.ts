// A small ONNX graph builder: nodes with generated value names, initializers from typed arrays,
// inputs and outputs with symbolic dimensions, large initializers optionally in an external-data
// file. The result is a ModelProto object for ./onnxProto.
import { ATTR, DATA_LOCATION_EXTERNAL, ONNX_FLOAT, ONNX_INT64 } from './onnxProto';

type Dim = number | string;
export type AttrValue = number | number[] | { float: number } | { floats: number[] };

function attribute(name: string, v: AttrValue): Record<string, unknown> {
  if (typeof v === 'number') return { name, type: ATTR.INT, i: v };
  if (Array.isArray(v)) return { name, type: ATTR.INTS, ints: v };
  if ('float' in v) return { name, type: ATTR.FLOAT, f: v.float };
  return { name, type: ATTR.FLOATS, floats: v.floats };
}

function valueInfo(name: string, elemType: number, dims: Dim[]): Record<string, unknown> {
  return {
    name,
    type: { tensor_type: { elem_type: elemType, shape: { dim: dims.map((d) => (typeof d === 'number' ? { dim_value: d } : { dim_param: d })) } } },
  };
}

const bytesOf = (a: Float32Array | BigInt64Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

/** Where large initializers go instead of the ModelProto (ONNX external data: a raw file beside the model). */
export interface ExternalDataTarget {
  /** The data file's name, relative to the model file (TensorProto.external_data "location"). */
  location: string;
  /** Initializers of at least this many bytes go to the file; smaller ones stay inline. */
  minBytes: number;
}

/** Offsets in the data file are aligned to this (page-aligned offsets let runtimes map the file). */
const EXTERNAL_ALIGN = 4096;

export class GraphBuilder {
  private readonly nodes: Record<string, unknown>[] = [];
  /** The external-data file's contents, in order (tensor bytes and alignment padding). */
  readonly externalParts: Uint8Array[] = [];
  private externalBytes = 0;
  private readonly initializers: Record<string, unknown>[] = [];
  private readonly inputs: Record<string, unknown>[] = [];
  private readonly outputs: Record<string, unknown>[] = [];
  private readonly constants = new Map<string, string>();
  private count = 0;

  constructor(private readonly external?: ExternalDataTarget) {}

  /** Bytes written to the external-data file so far. */
  get externalDataBytes(): number {
    return this.externalBytes;
  }

  private fresh(prefix: string): string {
    return `${prefix}_${this.count++}`;
  }

  /** Adds a node; returns its output names (one by default). */
  nodeN(op: string, inputs: string[], outputs: number, attrs: Record<string, AttrValue> = {}, name?: string): string[] {
    const outs = Array.from({ length: outputs }, () => this.fresh(op.toLowerCase()));
    this.nodes.push({ name: name ?? this.fresh(`n_${op}`), op_type: op, input: inputs, output: outs, attribute: Object.entries(attrs).map(([k, v]) => attribute(k, v)), domain: '' });
    return outs;
  }

  node(op: string, inputs: string[], attrs: Record<string, AttrValue> = {}): string {
    return this.nodeN(op, inputs, 1, attrs)[0];
  }

  /** A node whose single output has a chosen name (graph outputs). */
  named(output: string, op: string, inputs: string[], attrs: Record<string, AttrValue> = {}): string {
    this.nodes.push({ name: this.fresh(`n_${op}`), op_type: op, input: inputs, output: [output], attribute: Object.entries(attrs).map(([k, v]) => attribute(k, v)), domain: '' });
    return output;
  }

  /** A float initializer (row-major data of `dims`). */
  initF32(name: string, dims: number[], data: Float32Array): string {
    if (data.length !== dims.reduce((a, b) => a * b, 1)) throw new Error(`ONNX export: initializer '${name}' has ${data.length} values for dims [${dims.join(', ')}]`);
    const bytes = bytesOf(data);
    if (this.external && bytes.byteLength >= this.external.minBytes) {
      const pad = (EXTERNAL_ALIGN - (this.externalBytes % EXTERNAL_ALIGN)) % EXTERNAL_ALIGN;
      if (pad) this.externalParts.push(new Uint8Array(pad));
      const offset = this.externalBytes + pad;
      this.externalParts.push(bytes);
      this.externalBytes = offset + bytes.byteLength;
      const entries = { location: this.external.location, offset: String(offset), length: String(bytes.byteLength) };
      this.initializers.push({ name, dims, data_type: ONNX_FLOAT, data_location: DATA_LOCATION_EXTERNAL, external_data: Object.entries(entries).map(([key, value]) => ({ key, value })) });
    } else {
      this.initializers.push({ name, dims, data_type: ONNX_FLOAT, raw_data: bytes });
    }
    return name;
  }

  /** A shared int64 constant (shapes, axes), created once per value. */
  i64(values: number[], scalar = false): string {
    const key = `${scalar ? 's' : 'v'}:${values.join(',')}`;
    let name = this.constants.get(key);
    if (!name) {
      name = this.fresh('const_i64');
      this.initializers.push({ name, dims: scalar ? [] : [values.length], data_type: ONNX_INT64, raw_data: bytesOf(BigInt64Array.from(values.map(BigInt))) });
      this.constants.set(key, name);
    }
    return name;
  }

  /** A shared float scalar constant. */
  f32(value: number): string {
    const key = `f:${value}`;
    let name = this.constants.get(key);
    if (!name) {
      name = this.fresh('const_f32');
      this.initializers.push({ name, dims: [], data_type: ONNX_FLOAT, raw_data: bytesOf(Float32Array.of(value)) });
      this.constants.set(key, name);
    }
    return name;
  }

  input(name: string, elemType: number, dims: Dim[]): string {
    this.inputs.push(valueInfo(name, elemType, dims));
    return name;
  }

  output(name: string, elemType: number, dims: Dim[]): void {
    this.outputs.push(valueInfo(name, elemType, dims));
  }

  model(opts: { graphName: string; opset: number; irVersion: number; producerVersion: string; metadata?: Record<string, string> }): Record<string, unknown> {
    return {
      ir_version: opts.irVersion,
      opset_import: [{ domain: '', version: opts.opset }],
      producer_name: 'tabforge',
      producer_version: opts.producerVersion,
      metadata_props: Object.entries(opts.metadata ?? {}).map(([key, value]) => ({ key, value })),
      graph: { name: opts.graphName, node: this.nodes, initializer: this.initializers, input: this.inputs, output: this.outputs },
    };
  }
}
