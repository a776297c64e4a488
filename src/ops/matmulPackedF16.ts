// Matmuls whose weight operand is a frozen W (out, in) stored as f16 pairs in u32 words
// (shaders/matmul_packedF16.wgsl, a storage-layout header of the shared matmul body), and the f32 ⇄
// packed-f16 conversions (shaders/packF16.wgsl). Half the memory of an f32 W; accumulation is f32.
// A frozen weight needs no dW, so there are exactly two products:
//   linear forward   y (N, out) = x (N, in) · Wᵀ        matmulPackedF16Forward
//   input gradient   dx (N, in) = dy (N, out) · W       matmulPackedF16BackwardInput
// Portable path only: core WGSL (unpack2x16float), no `shader-f16`, identical on every adapter. An
// `enable f16;` variant would read the same buffer as array<vec2<f16>>; not built (no adapter we
// test exposes shader-f16, see the test), so there is nothing to fall back from.
// Shader = A loader (matmul_packedF16_a_{vec4,scalar}) + packed-W header + the shared matmul body.
import body from '../../shaders/matmul.wgsl?raw';
import header from '../../shaders/matmul_packedF16.wgsl?raw';
import aScalar from '../../shaders/matmul_packedF16_a_scalar.wgsl?raw';
import aVec4 from '../../shaders/matmul_packedF16_a_vec4.wgsl?raw';
import packCode from '../../shaders/packF16.wgsl?raw';
import type { GpuRuntime } from '../gpu/runtime';
import { packParams } from '../gpu/runtime';
import type { Tensor } from '../gpu/tensor';
import { grid1d } from './grid';
import { matmulTuning } from './matmul';

// WGSL module-scope declarations may come in any order: the A loader can precede Params.
const VEC4_A = `${aVec4}\n${header}\n${body}`;
const SCALAR_A = `${aScalar}\n${header}\n${body}`;
const TN = 8; // columns of C per invocation (shaders/matmul.wgsl)
const PACK_WG = 256; // shaders/packF16.wgsl WG

/** A weight stored as f16, two per u32 word (dtype 'u32', shape [ceil(size / 2)]). */
export interface PackedF16Tensor extends Tensor {
  readonly packing: 'f16x2';
  /** The f32 tensor's shape, e.g. (out, in). */
  readonly logicalShape: readonly number[];
  /** Elements of the logical tensor (2 per word, the last word's high half 0 when odd). */
  readonly logicalSize: number;
}

export function isPackedF16(t: Tensor): t is PackedF16Tensor {
  return (t as Partial<PackedF16Tensor>).packing === 'f16x2';
}

/** u32 words that hold n f16 values. */
export function packedWords(n: number): number {
  return Math.ceil(n / 2);
}

/** Packs an f32 tensor into f16 pairs on the GPU (round to nearest even, overflow → ±Inf). */
export function packF16(rt: GpuRuntime, x: Tensor, label = `${x.label}:f16`): PackedF16Tensor {
  if (x.dtype !== 'f32') throw new Error(`packF16: '${x.label}' is ${x.dtype}; only f32 tensors pack to f16`);
  const words = packedWords(x.size);
  const out = rt.empty([words], 'u32', label);
  rt.dispatch({
    op: 'pack_f16', code: packCode, entryPoint: 'forward_pack', params: packParams([['u32', x.size]]),
    bindings: { 1: x, 2: out }, workgroups: grid1d(words, PACK_WG),
  });
  return { ...out, packing: 'f16x2', logicalShape: [...x.shape], logicalSize: x.size };
}

/** The f32 values of a packed tensor (exact: every f16 is an f32), in its logical shape. */
export function unpackF16(rt: GpuRuntime, w: PackedF16Tensor, out?: Tensor): Tensor {
  const dst = out ?? rt.empty(w.logicalShape, 'f32', w.label.replace(/:f16$/, ''));
  if (dst.size !== w.logicalSize || dst.dtype !== 'f32') {
    throw new Error(`unpackF16: out '${dst.label}' is ${dst.dtype} [${dst.shape.join(', ')}], expected f32 [${w.logicalShape.join(', ')}]`);
  }
  rt.dispatch({
    op: 'unpack_f16', code: packCode, entryPoint: 'forward_unpack', params: packParams([['u32', w.logicalSize]]),
    bindings: { 3: w, 4: dst }, workgroups: grid1d(w.logicalSize, PACK_WG),
  });
  return dst;
}

/** Rows N and the weight's (out, in). */
export interface PackedLinearSpec {
  rows: number;
  inF: number;
  outF: number;
}

export interface PackedMatmulOptions {
  /** out += … instead of out = … (out must be given). */
  accumulate?: boolean;
  /** Force per-value word loads even when `in` is even (tests). */
  unpaired?: boolean;
  /** Force per-float loads of the activation operand even when K % 4 == 0 (tests). */
  scalarA?: boolean;
}

function check(what: string, s: PackedLinearSpec, a: Tensor, aCols: number, w: PackedF16Tensor, out: Tensor | undefined, outCols: number, opts: PackedMatmulOptions): void {
  for (const k of ['rows', 'inF', 'outF'] as const) {
    if (!Number.isInteger(s[k]) || s[k] < 1) throw new Error(`${what}: ${k} must be a positive integer, got ${s[k]}`);
  }
  if (!isPackedF16(w)) throw new Error(`${what}: weight '${(w as Tensor).label}' is not a packed-f16 tensor (packF16 makes one)`);
  const [o, i] = [s.outF, s.inF];
  if (w.logicalShape.length !== 2 || w.logicalShape[0] !== o || w.logicalShape[1] !== i) {
    throw new Error(`${what}: weight '${w.label}' is [${w.logicalShape.join(', ')}], the spec needs (out, in) = (${o}, ${i})`);
  }
  if (a.size !== s.rows * aCols) throw new Error(`${what}: input '${a.label}' has ${a.size} elements, expected (${s.rows}, ${aCols})`);
  if (out && out.size !== s.rows * outCols) throw new Error(`${what}: out '${out.label}' has ${out.size} elements, expected (${s.rows}, ${outCols})`);
  if (opts.accumulate && !out) throw new Error(`${what}: accumulate needs the output tensor to accumulate into`);
}

// C (M, N) (+)= A (M, K) · op(W); op(W) = Wᵀ when transB (W (N, K)), else W (W (K, N)).
function dispatchPacked(rt: GpuRuntime, op: string, a: Tensor, w: PackedF16Tensor, c: Tensor, M: number, K: number, N: number, transB: boolean, opts: PackedMatmulOptions): void {
  const inF = transB ? K : N;
  const paired = inF % 2 === 0 && !opts.unpaired;
  const vec4A = K % 4 === 0 && !opts.scalarA;
  // Same two kernel shapes as src/ops/matmul.ts: thin outputs (decode) 32×1 invocations of 4 rows.
  const [wx, wy, rowBlocks] = M <= 32 ? [32, 1, 1] : [...matmulTuning(rt.ctx), 4];
  rt.dispatch({
    op,
    code: vec4A ? VEC4_A : SCALAR_A,
    entryPoint: 'forward_matmul',
    constants: { WG_X: wx, WG_Y: wy, ROW_BLOCKS: rowBlocks, TRANS_B: transB ? 1 : 0, PAIRED: paired ? 1 : 0 },
    params: packParams([
      ['u32', M], ['u32', K], ['u32', N], ['u32', 1], ['u32', 0], ['u32', 0], ['u32', 0],
      ['u32', opts.accumulate ? 1 : 0], ['u32', w.size],
    ]),
    bindings: [a, w, c],
    workgroups: [Math.ceil(N / (TN * wx)), Math.ceil(M / (4 * rowBlocks * wy)), 1],
  });
}

/** y (N, out) (+)= x (N, in) · Wᵀ with W (out, in) packed f16. */
export function matmulPackedF16Forward(rt: GpuRuntime, x: Tensor, w: PackedF16Tensor, spec: PackedLinearSpec, out?: Tensor, opts: PackedMatmulOptions = {}): Tensor {
  check('matmulPackedF16Forward', spec, x, spec.inF, w, out, spec.outF, opts);
  const y = out ?? rt.empty([spec.rows, spec.outF], 'f32', 'matmulPackedF16.out');
  dispatchPacked(rt, 'matmul_packed_f16_forward', x, w, y, spec.rows, spec.inF, spec.outF, true, opts);
  return y;
}

/** dx (N, in) (+)= dy (N, out) · W with W (out, in) packed f16 (a frozen weight has no dW). */
export function matmulPackedF16BackwardInput(rt: GpuRuntime, dy: Tensor, w: PackedF16Tensor, spec: PackedLinearSpec, dx?: Tensor, opts: PackedMatmulOptions = {}): Tensor {
  check('matmulPackedF16BackwardInput', spec, dy, spec.outF, w, dx, spec.inF, opts);
  const d = dx ?? rt.empty([spec.rows, spec.inF], 'f32', 'matmulPackedF16.dx');
  dispatchPacked(rt, 'matmul_packed_f16_backward_dx', dy, w, d, spec.rows, spec.outF, spec.inF, false, opts);
  return d;
}
