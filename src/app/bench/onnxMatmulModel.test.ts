// The in-memory ONNX model (protobufjs + onnx.proto), checked by running its model with onnxruntime-web's wasm backend in Node.
import * as ort from 'onnxruntime-web';
import { describe, expect, it } from 'vitest';
import { Rng } from '../../util/rng';
import { onnxMatmulModel } from './onnxMatmulModel';

function matmulCpu(a: Float32Array, b: Float32Array, batch: number, M: number, K: number, N: number): Float32Array {
  const c = new Float32Array(batch * M * N);
  for (let p = 0; p < batch; p++)
    for (let i = 0; i < M; i++)
      for (let j = 0; j < N; j++) {
        let s = 0;
        for (let k = 0; k < K; k++) s += a[p * M * K + i * K + k] * b[p * K * N + k * N + j];
        c[p * M * N + i * N + j] = s;
      }
  return c;
}

describe('onnxMatmulModel', () => {
  // K = 300 needs a two-byte varint; batch 2 gives 3-D tensors.
  it.each([
    [1, 3, 300, 5],
    [2, 4, 6, 130],
  ])('encodes a MatMul that onnxruntime runs: batch %i, %i×%i×%i', async (batch, M, K, N) => {
    ort.env.wasm.numThreads = 1;
    const session = await ort.InferenceSession.create(onnxMatmulModel({ batch, M, K, N }), { executionProviders: ['wasm'] });
    expect(session.inputNames).toEqual(['A', 'B']);
    expect(session.outputNames).toEqual(['C']);
    const rng = new Rng(batch * 100 + K);
    const a = Float32Array.from({ length: batch * M * K }, () => rng.uniform(-1, 1));
    const b = Float32Array.from({ length: batch * K * N }, () => rng.uniform(-1, 1));
    const lead = batch === 1 ? [] : [batch];
    const out = await session.run({ A: new ort.Tensor('float32', a, [...lead, M, K]), B: new ort.Tensor('float32', b, [...lead, K, N]) });
    expect(out.C.dims).toEqual([...lead, M, N]);
    const want = matmulCpu(a, b, batch, M, K, N);
    const got = out.C.data as Float32Array;
    for (let i = 0; i < want.length; i++) expect(got[i]).toBeCloseTo(want[i], 4);
    await session.release();
  });

  it('rejects dimensions that are not non-negative integers', () => {
    expect(() => onnxMatmulModel({ batch: 1, M: 2.5, K: 3, N: 4 })).toThrow(/M must be a non-negative safe integer, got 2.5/);
  });
});
