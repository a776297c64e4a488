// Matmul rows of the bench: square sizes and the shapes a `tiny` transformer step runs
// (src/model/config.ts PRESETS.tiny with B·T = 512 tokens). Names are 'matmul <M>x<K>x<N>'.
// Every participant computes C = op(A)·op(B) on the same seeded data, ends each sample with a
// readback of C (the same sync point for all three), and has its first result spot-checked
// against a CPU dot product, so a fast wrong kernel can never win a row.
//   ours: matmulForward with the model's layouts (transB for x·Wᵀ, transA for weight gradients)
//   tfjs-webgpu: tf.matMul(a, b, transA, transB) on GPU-resident tensors
//   ort-webgpu: one-node MatMul model (GPU-resident inputs); MatMul has no transpose flags, so it
//     gets op(A) and op(B) already transposed on the host — same FLOPs, plain layouts.
import type { GpuRuntime } from '../../gpu/runtime';
import type { Tensor } from '../../gpu/tensor';
import { PRESETS } from '../../model/config';
import { matmulForward } from '../../ops/matmul';
import { Rng } from '../../util/rng';
import { onnxMatmulModel } from './onnxMatmulModel';
import { ortOf, tfjsOf } from './peers';
import type { BenchCase, PeerContext } from './registry';
import { registerBench } from './registry';

interface MatmulShape {
  name: string;
  M: number;
  K: number;
  N: number;
  transA: boolean;
  transB: boolean;
}

/** Host data shared by all participants of one row: A and B as stored, and op(A), op(B) plain. */
class RowData {
  readonly a: Float32Array; // (M, K), or (K, M) when transA
  readonly b: Float32Array; // (K, N), or (N, K) when transB
  constructor(readonly s: MatmulShape) {
    const rng = new Rng(s.M * 7 + s.K * 131 + s.N * 1031);
    this.a = Float32Array.from({ length: s.M * s.K }, () => rng.uniform(-1, 1));
    this.b = Float32Array.from({ length: s.K * s.N }, () => rng.uniform(-1, 1));
  }
  opA(i: number, k: number): number {
    return this.s.transA ? this.a[k * this.s.M + i] : this.a[i * this.s.K + k];
  }
  opB(k: number, j: number): number {
    return this.s.transB ? this.b[j * this.s.K + k] : this.b[k * this.s.N + j];
  }
  /** op(A) as a plain (M, K) array, op(B) as (K, N): the layouts MatMul without flags needs. */
  plain(): { a: Float32Array; b: Float32Array } {
    const { M, K, N } = this.s;
    const a = new Float32Array(M * K);
    const b = new Float32Array(K * N);
    for (let i = 0; i < M; i++) for (let k = 0; k < K; k++) a[i * K + k] = this.opA(i, k);
    for (let k = 0; k < K; k++) for (let j = 0; j < N; j++) b[k * N + j] = this.opB(k, j);
    return { a, b };
  }
  /** Throws unless c matches CPU dot products at a few positions (corners and inside). */
  verify(who: string, c: ArrayLike<number>): void {
    const { M, K, N } = this.s;
    for (const [i, j] of [[0, 0], [M - 1, N - 1], [M >> 1, N >> 1], [M - 1, 0], [0, N - 1]]) {
      let want = 0;
      for (let k = 0; k < K; k++) want += this.opA(i, k) * this.opB(k, j);
      const got = c[i * N + j];
      if (!(Math.abs(got - want) <= 1e-3 * Math.sqrt(K) + 1e-4 * Math.abs(want))) {
        throw new Error(`${who} computed C[${i}, ${j}] = ${got}, expected ${want}: wrong result, not timed`);
      }
    }
  }
}

const gflops = (s: MatmulShape, ms: number) => (2 * s.M * s.K * s.N) / (ms * 1e6);

function oursSampler(d: RowData) {
  let st: { a: Tensor; b: Tensor; c: Tensor } | null = null;
  let checked = false;
  const s = d.s;
  const spec = { batch: 1, M: s.M, K: s.K, N: s.N, transA: s.transA, transB: s.transB };
  return {
    async run(rt: GpuRuntime): Promise<number> {
      st ??= { a: rt.upload(d.a, s.transA ? [s.K, s.M] : [s.M, s.K]), b: rt.upload(d.b, s.transB ? [s.N, s.K] : [s.K, s.N]), c: rt.empty([s.M, s.N]) };
      await rt.sync();
      const t0 = performance.now();
      matmulForward(rt, st.a, st.b, spec, st.c);
      const c = await rt.readF32(st.c);
      const ms = performance.now() - t0;
      if (!checked) d.verify('ours', c);
      checked = true;
      return gflops(s, ms);
    },
    dispose(rt: GpuRuntime) {
      if (st) rt.release(st.a, st.b, st.c);
      st = null;
    },
  };
}

function tfjsSampler(d: RowData) {
  let st: { a: import('@tensorflow/tfjs').Tensor2D; b: import('@tensorflow/tfjs').Tensor2D } | null = null;
  let checked = false;
  const s = d.s;
  return {
    async run(peers: PeerContext): Promise<number> {
      const tf = tfjsOf(peers);
      st ??= { a: tf.tensor2d(d.a, s.transA ? [s.K, s.M] : [s.M, s.K]), b: tf.tensor2d(d.b, s.transB ? [s.N, s.K] : [s.K, s.N]) };
      await Promise.all([st.a.data(), st.b.data()]); // uploads done before the clock starts
      const t0 = performance.now();
      const c = tf.matMul(st.a, st.b, s.transA, s.transB);
      const out = await c.data();
      const ms = performance.now() - t0;
      c.dispose();
      if (!checked) d.verify('tfjs-webgpu', out);
      checked = true;
      return gflops(s, ms);
    },
    dispose() {
      st?.a.dispose();
      st?.b.dispose();
      st = null;
    },
  };
}

function ortSampler(d: RowData) {
  type Ort = ReturnType<typeof ortOf>;
  let st: { session: import('onnxruntime-web').InferenceSession; feeds: Record<string, import('onnxruntime-web').Tensor>; buffers: GPUBuffer[] } | null = null;
  let checked = false;
  const s = d.s;
  const gpuInput = (o: Ort, data: Float32Array, dims: number[]) => {
    const buffer = o.device.createBuffer({ size: data.byteLength, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
    o.device.queue.writeBuffer(buffer, 0, data.buffer, data.byteOffset, data.byteLength);
    return { buffer, tensor: o.ort.Tensor.fromGpuBuffer(buffer, { dataType: 'float32', dims }) };
  };
  return {
    async run(peers: PeerContext): Promise<number> {
      const o = ortOf(peers);
      if (!st) {
        const plain = d.plain();
        const session = await o.ort.InferenceSession.create(onnxMatmulModel({ batch: 1, M: s.M, K: s.K, N: s.N }), { executionProviders: [{ name: 'webgpu', device: o.device }] });
        const a = gpuInput(o, plain.a, [s.M, s.K]);
        const b = gpuInput(o, plain.b, [s.K, s.N]);
        st = { session, feeds: { A: a.tensor, B: b.tensor }, buffers: [a.buffer, b.buffer] };
        await o.device.queue.onSubmittedWorkDone();
      }
      const t0 = performance.now();
      const out = await st.session.run(st.feeds); // output 'C' comes back to the CPU: the readback
      const ms = performance.now() - t0;
      if (!checked) d.verify('ort-webgpu', out.C.data as Float32Array);
      checked = true;
      return gflops(s, ms);
    },
    async dispose() {
      await st?.session.release();
      for (const b of st?.buffers ?? []) b.destroy();
      st = null;
    },
  };
}

export function matmulBenchCase(s: MatmulShape): BenchCase {
  const d = new RowData(s);
  const ours = oursSampler(d);
  const tfjs = tfjsSampler(d);
  const ort = ortSampler(d);
  return {
    name: s.name,
    unit: 'GFLOP/s',
    run: (rt) => ours.run(rt),
    peers: { 'tfjs-webgpu': (p) => tfjs.run(p), 'ort-webgpu': (p) => ort.run(p) },
    async dispose(rt) {
      ours.dispose(rt);
      tfjs.dispose();
      await ort.dispose();
    },
  };
}

/** The shapes one `tiny` training step multiplies (x·Wᵀ forward, and one weight gradient). */
export function tinyMatmulShapes(tokens = 512): MatmulShape[] {
  const c = PRESETS.tiny;
  const C = c.hiddenSize;
  const qkv = (c.numHeads + 2 * c.numKvHeads) * c.headDim;
  const attn = c.numHeads * c.headDim;
  const F = c.intermediateSize;
  const V = c.vocabSize;
  const linear = (what: string, K: number, N: number): MatmulShape => ({ name: `matmul tiny ${what} ${tokens}x${K}x${N}`, M: tokens, K, N, transA: false, transB: true });
  return [
    linear('qkv', C, qkv),
    linear('attn-out', attn, C),
    linear('mlp-up', C, F),
    linear('mlp-down', F, C),
    linear('lm-head', C, V),
    // dW (F, C) = dyᵀ (F, tokens) · x (tokens, C)
    { name: `matmul tiny mlp-up dW ${F}x${tokens}x${C}`, M: F, K: tokens, N: C, transA: true, transB: false },
  ];
}

export function squareMatmulShapes(sizes = [256, 512, 1024]): MatmulShape[] {
  return sizes.map((n) => ({ name: `matmul ${n}x${n}x${n}`, M: n, K: n, N: n, transA: false, transB: false }));
}

registerBench(...[...squareMatmulShapes(), ...tinyMatmulShapes()].map(matmulBenchCase));
