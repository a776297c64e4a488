// Batched matmul on the GPU (shaders/matmul.wgsl + one storage-layout header) and its backward as
// matmuls with the right transposes. Bias-free; the model's HF Linear y = x·Wᵀ is
// { batch: 1, M: tokens, K: in, N: out, transA: false, transB: true } with W (out, in).
//   A: (batch, M, K), or (batch, K, M) when transA
//   B: (batch, K, N), or (batch, N, K) when transB; one (K, N) / (N, K) matrix when !bBatched
//   C: (batch, M, N)
import body from '../../shaders/matmul.wgsl?raw';
import scalarHeader from '../../shaders/matmul_scalar.wgsl?raw';
import vec4Header from '../../shaders/matmul_vec4.wgsl?raw';
import type { GpuContext } from '../gpu/device';
import type { GpuRuntime } from '../gpu/runtime';
import { packParams } from '../gpu/runtime';
import type { Tensor } from '../gpu/tensor';

const VEC4_CODE = `${vec4Header}\n${body}`;
const SCALAR_CODE = `${scalarHeader}\n${body}`;
const TN = 8; // columns of C per invocation (shaders/matmul.wgsl); rows: 4 · ROW_BLOCKS

export interface MatmulSpec {
  batch: number;
  M: number;
  K: number;
  N: number;
  /** A is stored (batch, K, M). */
  transA: boolean;
  /** B is stored (batch, N, K). */
  transB: boolean;
  /** false: B is one matrix shared by every batch entry (weights); default true. */
  bBatched?: boolean;
}

export interface MatmulOptions {
  /** C += op(A)·op(B) instead of C = … (C must be given and hold the running sum). */
  accumulate?: boolean;
  /** Force the storage layout (tests and tuning); default: vec4 when aligned, else scalar. */
  layout?: 'vec4' | 'scalar';
  /** Force the workgroup shape [along N, along M] with 16 rows per invocation (tuning); default: see kernelShapeFor. */
  workgroup?: [number, number];
}

/** One dispatch: C[z] (=|+=) Σ_s op(A[z·loop+s])·op(B[z·loop+s]) over z < batch / batchLoop. */
interface Gemm {
  M: number;
  K: number;
  N: number;
  transA: boolean;
  transB: boolean;
  /** Output batch entries (the dispatch's z). */
  batch: number;
  /** Input batch entries summed into each output entry. */
  batchLoop: number;
  aStride: number;
  bStride: number;
  cStride: number;
}

export type CpuAdapterKind = 'swiftshader' | 'llvmpipe' | 'other';

/**
 * Which software rasteriser (if any) runs this device, from the adapter's info strings. Dawn in
 * Node names SwiftShader and llvmpipe. Chromium leaves every info string empty for its OpenGL ES
 * (compatibility) adapter, which on these machines is llvmpipe; real GPUs report at least a vendor,
 * so "compatibility with no info at all" is taken as llvmpipe (a speed choice only: every kernel
 * variant is correct everywhere).
 */
export function adapterKind(ctx: Pick<GpuContext, 'adapterInfo'> & { featureLevel?: GpuContext['featureLevel'] }): CpuAdapterKind {
  const i = ctx.adapterInfo;
  const all = `${i.vendor} ${i.architecture} ${i.device} ${i.description}`.toLowerCase();
  if (all.includes('swiftshader')) return 'swiftshader';
  if (all.includes('llvmpipe')) return 'llvmpipe';
  if (ctx.featureLevel === 'compatibility' && all.trim() === '') return 'llvmpipe';
  return 'other';
}

/**
 * Workgroup shape [invocations along N, along M] per adapter (sweep in shaders/matmul.wgsl): both
 * CPU adapters do best with 8×8 (a 128×64 tile of C per workgroup); 'other' (real GPUs) is untuned.
 */
export function matmulTuning(ctx: Pick<GpuContext, 'adapterInfo'>): [number, number] {
  switch (adapterKind(ctx)) {
    case 'swiftshader':
      return [8, 8];
    case 'llvmpipe':
      return [8, 8];
    default:
      return [8, 8];
  }
}

/** Kernel shape: invocations along N and M, and 4-row blocks of C per invocation. */
interface KernelShape {
  wx: number;
  wy: number;
  rowBlocks: 1 | 4;
}

/**
 * Two shapes per adapter only, since each (layout, transposes, shape) is a pipeline to compile
 * (~1 s on SwiftShader): thin outputs (M ≤ 32: decode steps, a few sequences) get one row of 32
 * invocations with 4 rows each (2× faster than 16 rows at M ≤ 4, equal at M = 16); the rest the
 * tuned workgroup with 16 rows per invocation.
 */
function kernelShapeFor(rt: GpuRuntime, g: Gemm, force?: [number, number]): KernelShape {
  if (g.M <= 32 && !force) return { wx: 32, wy: 1, rowBlocks: 1 };
  const [wx, wy] = force ?? matmulTuning(rt.ctx);
  return { wx, wy, rowBlocks: 4 };
}

/** vec4 loads need every vec4 on a multiple of 4 floats along each operand's contiguous dim. */
function vec4Aligned(g: Gemm): boolean {
  const aContig = g.transA ? g.M : g.K;
  const bContig = g.transB ? g.K : g.N;
  return aContig % 4 === 0 && bContig % 4 === 0 && g.aStride % 4 === 0 && g.bStride % 4 === 0;
}

function dispatchGemm(rt: GpuRuntime, op: string, a: Tensor, b: Tensor, c: Tensor, g: Gemm, opts: MatmulOptions): void {
  const layout = opts.layout ?? (vec4Aligned(g) ? 'vec4' : 'scalar');
  if (layout === 'vec4' && !vec4Aligned(g)) throw new Error(`${op}: vec4 layout forced on an unaligned shape (M=${g.M}, K=${g.K}, N=${g.N}); use 'scalar'`);
  const { wx, wy, rowBlocks } = kernelShapeFor(rt, g, opts.workgroup);
  rt.dispatch({
    op,
    code: layout === 'vec4' ? VEC4_CODE : SCALAR_CODE,
    entryPoint: 'forward_matmul',
    constants: { WG_X: wx, WG_Y: wy, ROW_BLOCKS: rowBlocks, TRANS_A: g.transA ? 1 : 0, TRANS_B: g.transB ? 1 : 0 },
    params: packParams([
      ['u32', g.M], ['u32', g.K], ['u32', g.N], ['u32', g.batchLoop],
      ['u32', g.aStride], ['u32', g.bStride], ['u32', g.cStride], ['u32', opts.accumulate ? 1 : 0],
    ]),
    bindings: [a, b, c],
    workgroups: [Math.ceil(g.N / (TN * wx)), Math.ceil(g.M / (4 * rowBlocks * wy)), g.batch],
  });
}

function checkSpec(what: string, s: MatmulSpec): void {
  for (const k of ['batch', 'M', 'K', 'N'] as const) {
    if (!Number.isInteger(s[k]) || s[k] < 1) throw new Error(`${what}: ${k} must be a positive integer, got ${s[k]}`);
  }
}

function checkSize(what: string, t: Tensor, name: string, want: number, layout: string): void {
  if (t.size !== want) throw new Error(`${what}: ${name} '${t.label}' has ${t.size} elements [${t.shape.join(', ')}], the spec needs ${layout} = ${want}`);
}

function checkOperands(what: string, s: MatmulSpec, a: Tensor, b: Tensor): void {
  checkSpec(what, s);
  const { batch, M, K, N } = s;
  const bb = s.bBatched === false ? 1 : batch;
  checkSize(what, a, 'a', batch * M * K, s.transA ? `(batch, K, M) = (${batch}, ${K}, ${M})` : `(batch, M, K) = (${batch}, ${M}, ${K})`);
  const bLayout = s.transB ? `(N, K) = (${N}, ${K})` : `(K, N) = (${K}, ${N})`;
  checkSize(what, b, 'b', bb * K * N, s.bBatched === false ? `one shared ${bLayout}` : `batch × ${bLayout}, batch = ${batch}`);
}

/** c (batch, M, N) = op(a)·op(b); with opts.accumulate, c += op(a)·op(b). */
export function matmulForward(rt: GpuRuntime, a: Tensor, b: Tensor, spec: MatmulSpec, out?: Tensor, opts: MatmulOptions = {}): Tensor {
  checkOperands('matmulForward', spec, a, b);
  const { batch, M, K, N, transA, transB } = spec;
  if (opts.accumulate && !out) throw new Error('matmulForward: accumulate needs the output tensor to accumulate into');
  const c = out ?? rt.empty([batch, M, N], 'f32', 'matmul.out');
  checkSize('matmulForward', c, 'out', batch * M * N, `(batch, M, N) = (${batch}, ${M}, ${N})`);
  const bStride = spec.bBatched === false ? 0 : K * N;
  dispatchGemm(rt, 'matmul_forward', a, b, c, { M, K, N, transA, transB, batch, batchLoop: 1, aStride: M * K, bStride, cStride: M * N }, opts);
  return c;
}

export interface MatmulGrads {
  /** Same layout as a. */
  da: Tensor;
  /** Same layout as b (one matrix when !bBatched: the sum over the batch). */
  db: Tensor;
}

/**
 * da = dc·op(B)ᵀ and db = op(A)ᵀ·dc, each written in its operand's storage layout. With
 * accumulateDa / accumulateDb the new gradient is added to the given tensor (micro-batches, tied
 * weights). A shared B (!bBatched) gets the sum over the batch in one dispatch.
 */
export function matmulBackward(
  rt: GpuRuntime, dc: Tensor, a: Tensor, b: Tensor, spec: MatmulSpec,
  outs?: { da?: Tensor; db?: Tensor; accumulateDa?: boolean; accumulateDb?: boolean },
): MatmulGrads {
  checkOperands('matmulBackward', spec, a, b);
  const { batch, M, K, N, transA, transB } = spec;
  checkSize('matmulBackward', dc, 'dc', batch * M * N, `(batch, M, N) = (${batch}, ${M}, ${N})`);
  if (outs?.accumulateDa && !outs.da) throw new Error('matmulBackward: accumulateDa needs the da tensor to accumulate into');
  if (outs?.accumulateDb && !outs.db) throw new Error('matmulBackward: accumulateDb needs the db tensor to accumulate into');
  const shared = spec.bBatched === false;
  const da = outs?.da ?? rt.empty(a.shape, 'f32', 'matmul.da');
  const db = outs?.db ?? rt.empty(b.shape, 'f32', 'matmul.db');
  checkSize('matmulBackward', da, 'da', a.size, 'the size of a');
  checkSize('matmulBackward', db, 'db', b.size, 'the size of b');
  const bStride = shared ? 0 : K * N;
  const [mk, mn] = [M * K, M * N];

  // forward: op(A) = C·op(B)ᵀ … dOp(A) (M, K) = dC (M, N) · op(B)ᵀ (N, K)
  const daOpts = { accumulate: outs?.accumulateDa };
  if (!transA) {
    dispatchGemm(rt, 'matmul_backward_da', dc, b, da, { M, K: N, N: K, transA: false, transB: !transB, batch, batchLoop: 1, aStride: mn, bStride, cStride: mk }, daOpts);
  } else {
    // A stored (K, M): dA = dOp(A)ᵀ = op(B) (K, N) · dCᵀ (N, M)
    dispatchGemm(rt, 'matmul_backward_da', b, dc, da, { M: K, K: N, N: M, transA: transB, transB: true, batch, batchLoop: 1, aStride: bStride, bStride: mn, cStride: mk }, daOpts);
  }

  // dOp(B) (K, N) = op(A)ᵀ (K, M) · dC (M, N); a shared B sums it over the batch (batchLoop).
  const dbOpts = { accumulate: outs?.accumulateDb };
  const [outBatch, loop] = shared ? [1, batch] : [batch, 1];
  if (!transB) {
    dispatchGemm(rt, 'matmul_backward_db', a, dc, db, { M: K, K: M, N, transA: !transA, transB: false, batch: outBatch, batchLoop: loop, aStride: mk, bStride: mn, cStride: K * N }, dbOpts);
  } else {
    // B stored (N, K): dB = dOp(B)ᵀ = dCᵀ (N, M) · op(A) (M, K)
    dispatchGemm(rt, 'matmul_backward_db', dc, a, db, { M: N, K: M, N: K, transA: true, transB: transA, batch: outBatch, batchLoop: loop, aStride: mn, bStride: mk, cStride: K * N }, dbOpts);
  }
  return { da, db };
}
