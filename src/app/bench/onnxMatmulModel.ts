// A one-node ONNX model (MatMul, float32) built in memory, so onnxruntime-web can run the same
// matmul as ours without any model file. Encoded by protobufjs from onnx.proto through the export's
// graph builder (src/storage/export/onnx), like the exported decoder.
import { GraphBuilder } from '../../storage/export/onnx/graphBuilder';
import { encodeModel, ONNX_FLOAT } from '../../storage/export/onnx/onnxProto';

/**
 * ONNX bytes for C (batch, M, N) = A (batch, M, K) · B (batch, K, N), inputs 'A', 'B', output 'C'.
 * With batch 1 the tensors are 2-D. (MatMul has no transpose flags: pass B already as (K, N).)
 */
export function onnxMatmulModel(spec: { batch: number; M: number; K: number; N: number }, opset = 13): Uint8Array {
  for (const [k, v] of Object.entries(spec)) {
    if (!Number.isSafeInteger(v) || v < 0) throw new Error(`onnxMatmulModel: ${k} must be a non-negative safe integer, got ${v}`);
  }
  const { batch, M, K, N } = spec;
  const lead = batch === 1 ? [] : [batch];
  const g = new GraphBuilder();
  g.input('A', ONNX_FLOAT, [...lead, M, K]);
  g.input('B', ONNX_FLOAT, [...lead, K, N]);
  g.named('C', 'MatMul', ['A', 'B']);
  g.output('C', ONNX_FLOAT, [...lead, M, N]);
  return encodeModel(g.model({ graphName: 'tabforge_matmul', opset, irVersion: 8, producerVersion: 'bench' }));
}
