// A one-node ONNX model (MatMul, float32) built in memory, so onnxruntime-web can run the same
// matmul as ours without any model file. Minimal protobuf encoder: only the fields needed.
//   ModelProto { ir_version = 1, producer_name = 2, graph = 7, opset_import = 8 }
//   OperatorSetIdProto { domain = 1, version = 2 }
//   GraphProto { node = 1, name = 2, input = 11, output = 12 }
//   NodeProto { input = 1, output = 2, name = 3, op_type = 4 }
//   ValueInfoProto { name = 1, type = 2 } → TypeProto { tensor_type = 1 }
//   TypeProto.Tensor { elem_type = 1 (1 = FLOAT), shape = 2 } → TensorShapeProto { dim = 1 }
//   TensorShapeProto.Dimension { dim_value = 1 }

const VARINT = 0;
const BYTES = 2;
const FLOAT = 1; // TensorProto.DataType.FLOAT

function varint(n: number): number[] {
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`onnx encoder: varint needs a non-negative safe integer, got ${n}`);
  const out: number[] = [];
  while (n > 127) {
    out.push((n % 128) | 128);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return out;
}

const tag = (field: number, wire: number) => varint(field * 8 + wire);
const intField = (field: number, v: number) => [...tag(field, VARINT), ...varint(v)];
const bytesField = (field: number, b: number[]) => [...tag(field, BYTES), ...varint(b.length), ...b];
const strField = (field: number, s: string) => bytesField(field, [...new TextEncoder().encode(s)]);

function tensorValueInfo(name: string, dims: number[]): number[] {
  const shape = dims.flatMap((d) => bytesField(1, intField(1, d))); // TensorShapeProto.dim
  const tensorType = [...intField(1, FLOAT), ...bytesField(2, shape)];
  return [...strField(1, name), ...bytesField(2, bytesField(1, tensorType))];
}

/**
 * ONNX bytes for C (batch, M, N) = A (batch, M, K) · B (batch, K, N), inputs 'A', 'B', output 'C'.
 * With batch 1 the tensors are 2-D. (MatMul has no transpose flags: pass B already as (K, N).)
 */
export function onnxMatmulModel(spec: { batch: number; M: number; K: number; N: number }, opset = 13): Uint8Array {
  const { batch, M, K, N } = spec;
  const lead = batch === 1 ? [] : [batch];
  const node = [...strField(1, 'A'), ...strField(1, 'B'), ...strField(2, 'C'), ...strField(3, 'matmul'), ...strField(4, 'MatMul')];
  const graph = [
    ...bytesField(1, node),
    ...strField(2, 'tabforge_matmul'),
    ...bytesField(11, tensorValueInfo('A', [...lead, M, K])),
    ...bytesField(11, tensorValueInfo('B', [...lead, K, N])),
    ...bytesField(12, tensorValueInfo('C', [...lead, M, N])),
  ];
  const opsetImport = [...strField(1, ''), ...intField(2, opset)];
  const model = [...intField(1, 8), ...strField(2, 'tabforge-bench'), ...bytesField(7, graph), ...bytesField(8, opsetImport)];
  return new Uint8Array(model);
}
