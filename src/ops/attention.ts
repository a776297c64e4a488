// Causal grouped-query self-attention, flash-attention style: forward, backward and KV-cache decode.
// Reference: src/reference/ops/attention.ts (same spec and semantics, float64).
//
// Shapes: B batch, T time, Hq query heads, Hkv kv heads (divides Hq; query head h reads kv head
// floor(h / (Hq / Hkv))), D head dim.
//   q, out, dout, dq (B, T, Hq, D);  k, v, dk, dv (B, T, Hkv, D);  lse (B, Hq, T);  segments (B, T) i32
// Query t attends key s iff s ≤ t and segments[b, t] sees segments[b, s]: the same id ≥ 0 (packed
// documents), or a branch id's shared prefix (src/data/segments.ts); a negative id marks padding. A row with no allowed key gets out = 0, lse = 0 and zero gradients.
//
// Kernels (shaders/attention_*.wgsl): the forward keeps only out and lse (online softmax); the
// backward computes (lse, Δ = rowsum(dout ∘ out)) per row, then dq per query row and dk/dv per key
// row, recomputing probabilities from q, k and lse. No T×T matrix is ever stored. Two variants:
//   'tile' — query/key tiles in workgroup memory (for GPUs); tile sizes chosen per kernel from the
//            head dim and the device's workgroup memory (16 KiB on compatibility adapters);
//   'row'  — each invocation owns a few rows in registers, no workgroup memory or barriers
//            (shaders/attention_row.wgsl, src/ops/attentionRow.ts), for CPU adapters, which run a
//            workgroup as SIMD lanes and pay dearly for barriers.
import commonCode from '../../shaders/attention_common.wgsl?raw';
import dkdvCode from '../../shaders/attention_backward_dkdv.wgsl?raw';
import dqCode from '../../shaders/attention_backward_dq.wgsl?raw';
import statsCode from '../../shaders/attention_backward_stats.wgsl?raw';
import forwardCode from '../../shaders/attention_forward.wgsl?raw';
import type { GpuContext } from '../gpu/device';
import { type GpuRuntime, packParams } from '../gpu/runtime';
import type { DType, Tensor } from '../gpu/tensor';
import { ROW_MAX_D, rowBackward, rowBlockFor, rowForward, rowVariantFits } from './attentionRow';
import { adapterKind } from './matmul';

export interface AttentionSpec {
  B: number;
  T: number;
  Hq: number;
  Hkv: number;
  D: number;
  /** Score scale; default 1 / sqrt(D). */
  scale?: number;
  /** (B, T) i32 segment id per token; tokens attend only within their segment; negative = padding. */
  segments?: Tensor;
  /** Tile sizes per kernel (benchmarks and tests); default chooseAttentionTiles for the device. */
  tiles?: Partial<Record<AttentionKernel, AttentionTiles>>;
  /** Kernel variant (benchmarks and tests); default 'tile' when `tiles` is given, else chooseAttentionVariant for the device. */
  variant?: AttentionVariant;
  /** Row kernels: query rows (forward, dq) or key rows (dk/dv) per invocation; default chooseRowBlock. */
  rowBlock?: number;
}

/** 'tile': workgroup-memory tiles (GPUs); 'row': a few rows per invocation in registers, no barriers (CPU adapters). */
export type AttentionVariant = 'tile' | 'row';

export type AttentionKernel = 'forward' | 'dq' | 'dkdv';

export interface AttentionTiles {
  /** Query rows per tile (BLOCK_Q). */
  blockQ: number;
  /** Key rows per tile (BLOCK_K). */
  blockK: number;
  /** Invocations per workgroup. */
  threads: number;
}

export interface DeviceTileLimits {
  maxComputeWorkgroupStorageSize: number;
  maxComputeInvocationsPerWorkgroup: number;
}

const TILE_SIZES = [32, 16, 8, 4, 2, 1];
// v1 reads both operands of every score from workgroup memory (no register blocking), so tiles past
// 256 score entries gain little on GPUs, and SwiftShader compiles ~1 ms per zero-initialised float.
const MAX_TILE_ENTRIES = 256;
const MAX_ACC_PER_THREAD = 32; // register accumulators per invocation before we add threads
const STATS_THREADS = 64;

/**
 * Row kernels on CPU adapters (SwiftShader, llvmpipe) when D is a multiple of 4 up to ROW_MAX_D,
 * tile kernels elsewhere (GPUs: B·H·T/ROWS invocations is little parallelism; untuned there).
 * At B=4, T=512, Hq=4, Hkv=2, D=24 the row kernels ran forward + backward 7× faster on SwiftShader
 * and 30× on llvmpipe (shaders/attention_row.wgsl has the numbers).
 */
export function chooseAttentionVariant(ctx: Pick<GpuContext, 'adapterInfo'> & { featureLevel?: GpuContext['featureLevel'] }, D: number): AttentionVariant {
  const cpu = adapterKind(ctx) !== 'other';
  return cpu && rowVariantFits(D) ? 'row' : 'tile';
}

/** Workgroup memory of one kernel in bytes (f32 and i32 are 4 bytes), as declared in its .wgsl. */
export function attentionWorkgroupBytes(kernel: AttentionKernel, blockQ: number, blockK: number, D: number): number {
  const q = blockQ;
  const k = blockK;
  const floats =
    kernel === 'forward'
      ? (q + k) * D + q * k + 4 * q + k // sQ, sKV, sS, sM/sL/sAlpha/sSegQ, sSegK
      : kernel === 'dq'
        ? 2 * q * D + k * D + q * k + 3 * q + k // sQ, sDO, sKV, sS, sLse/sDelta/sSegQ, sSegK
        : 2 * k * D + 2 * q * D + 2 * q * k + 3 * q + k; // sK, sV, sQ, sDO, sP, sDS, rows, sSegK
  return 4 * floats;
}

/**
 * Largest tiles (most score entries per tile up to 256, then the larger loop-invariant side) whose
 * workgroup memory fits the device; threads grow until each holds ≤ 32 accumulators. `maxBlockQ` caps the
 * query side (decode with few new rows).
 */
export function chooseAttentionTiles(kernel: AttentionKernel, D: number, limits: DeviceTileLimits, maxBlockQ = 32): AttentionTiles {
  let best: { blockQ: number; blockK: number } | null = null;
  for (const blockQ of TILE_SIZES.filter((s) => s <= maxBlockQ)) {
    for (const blockK of TILE_SIZES) {
      if (blockQ * blockK > MAX_TILE_ENTRIES || attentionWorkgroupBytes(kernel, blockQ, blockK, D) > limits.maxComputeWorkgroupStorageSize) continue;
      const outer = kernel === 'dkdv' ? blockK : blockQ; // the tile that stays resident
      const bestOuter = best && (kernel === 'dkdv' ? best.blockK : best.blockQ);
      if (!best || blockQ * blockK > best.blockQ * best.blockK || (blockQ * blockK === best.blockQ * best.blockK && outer > bestOuter!)) {
        best = { blockQ, blockK };
      }
    }
  }
  if (!best) {
    throw new Error(
      `attention: head dim D = ${D} needs ${attentionWorkgroupBytes(kernel, 1, 1, D)} bytes of workgroup memory even with 1×1 tiles; ` +
        `this device allows ${limits.maxComputeWorkgroupStorageSize}: use a model with a smaller head dim (≤ 128 fits every adapter)`,
    );
  }
  const accFloats = (kernel === 'dkdv' ? 2 * best.blockK : best.blockQ) * D;
  let threads = 64;
  while (threads < 256 && threads * 2 <= limits.maxComputeInvocationsPerWorkgroup && accFloats / threads > MAX_ACC_PER_THREAD) threads *= 2;
  return { ...best, threads };
}

// ---- shader composition and bindings -------------------------------------------------------

const KERNEL_CODE: Record<AttentionKernel | 'stats', string> = { forward: forwardCode, dq: dqCode, dkdv: dkdvCode, stats: statsCode };
const composed = new Map<string, string>();

/** Tile constants + common part + kernel body; one string (hence one pipeline) per variant. */
function shaderFor(kernel: AttentionKernel | 'stats', D: number, t: AttentionTiles): string {
  const key = `${kernel}:${D}:${t.blockQ}:${t.blockK}:${t.threads}`;
  let code = composed.get(key);
  if (!code) {
    const header =
      `const HEAD_DIM: u32 = ${D}u;\nconst BLOCK_Q: u32 = ${t.blockQ}u;\n` +
      `const BLOCK_K: u32 = ${t.blockK}u;\nconst THREADS: u32 = ${t.threads}u;\n`;
    code = `${header}\n${commonCode}\n${KERNEL_CODE[kernel]}`;
    composed.set(key, code);
  }
  return code;
}

/** spec.variant, else 'tile' when spec.tiles is given (tiles only shape the tile kernels), else the device's choice. */
function variantFor(rt: GpuRuntime, spec: { D: number; variant?: AttentionVariant; tiles?: object }, op: string): AttentionVariant {
  if (!spec.variant) return spec.tiles ? 'tile' : chooseAttentionVariant(rt.ctx, spec.D);
  if (spec.variant === 'row' && !rowVariantFits(spec.D)) {
    throw new Error(`${op}: the row kernels need a head dim D that is a multiple of 4 and ≤ ${ROW_MAX_D}, got D = ${spec.D}: use variant 'tile' or omit it`);
  }
  return spec.variant;
}

/** A 4-element i32 zero tensor bound where segments or offsets are absent (never released). */
const dummies = new WeakMap<GpuRuntime, Tensor>();
function dummyI32(rt: GpuRuntime): Tensor {
  let t = dummies.get(rt);
  if (!t) {
    t = rt.upload(new Int32Array(4), [4], 'i32', 'attention:dummy');
    dummies.set(rt, t);
  }
  return t;
}

function tilesFor(rt: GpuRuntime, kernel: AttentionKernel, spec: { D: number; tiles?: AttentionSpec['tiles'] }, op: string, maxBlockQ?: number): AttentionTiles {
  const forced = spec.tiles?.[kernel];
  if (!forced) return chooseAttentionTiles(kernel, spec.D, rt.ctx.limits, maxBlockQ);
  const { blockQ, blockK, threads } = forced;
  if (![blockQ, blockK, threads].every((n) => Number.isInteger(n) && n >= 1) || threads < Math.max(blockQ, blockK)) {
    // the kernels give one thread to each tile row for row statistics and segment ids
    throw new Error(`${op}: ${kernel} tiles ${blockQ}×${blockK} with ${threads} threads: sizes must be positive integers and threads ≥ both tile sides`);
  }
  const bytes = attentionWorkgroupBytes(kernel, forced.blockQ, forced.blockK, spec.D);
  if (bytes > rt.ctx.limits.maxComputeWorkgroupStorageSize || forced.threads > rt.ctx.limits.maxComputeInvocationsPerWorkgroup) {
    throw new Error(
      `${op}: ${kernel} tiles ${forced.blockQ}×${forced.blockK} with ${forced.threads} threads need ${bytes} bytes of workgroup memory; ` +
        `this device allows ${rt.ctx.limits.maxComputeWorkgroupStorageSize} bytes and ${rt.ctx.limits.maxComputeInvocationsPerWorkgroup} threads: pick smaller tiles or omit spec.tiles`,
    );
  }
  return forced;
}

interface ParamFields {
  B: number;
  Tq: number;
  Tk: number;
  Hq: number;
  Hkv: number;
  scale: number;
  hasSegments: boolean;
  hasOffsets: boolean;
  pastLen: number;
}

function params(p: ParamFields): ArrayBuffer {
  return packParams([
    ['u32', p.B], ['u32', p.Tq], ['u32', p.Tk], ['u32', p.Hq],
    ['u32', p.Hkv], ['u32', p.Hq / p.Hkv], ['f32', p.scale], ['u32', p.hasSegments ? 1 : 0],
    ['u32', p.hasOffsets ? 1 : 0], ['u32', p.pastLen], ['u32', 0], // loop_start: see attention_common.wgsl
  ]);
}

// ---- validation -------------------------------------------------------------------------------

function checkTensor(t: Tensor, shape: number[], dtype: DType, op: string, name: string, layout: string): void {
  if (t.dtype !== dtype) throw new Error(`${op}: ${name} must be ${dtype}, got ${t.dtype} (tensor '${t.label}')`);
  if (t.shape.length !== shape.length || t.shape.some((d, i) => d !== shape[i])) {
    throw new Error(`${op}: ${name} must have shape ${layout} = [${shape.join(', ')}], got [${t.shape.join(', ')}] (tensor '${t.label}')`);
  }
}

function checkDims(op: string, dims: Record<string, number>, Hq: number, Hkv: number): void {
  for (const [name, n] of Object.entries(dims)) {
    if (!Number.isInteger(n) || n < 1) throw new Error(`${op}: ${name} = ${n} must be a positive integer`);
  }
  if (Hq % Hkv !== 0) throw new Error(`${op}: Hkv = ${Hkv} must divide Hq = ${Hq} (grouped-query attention shares each kv head among Hq / Hkv query heads)`);
}

function checkSpec(op: string, spec: AttentionSpec): void {
  const { B, T, Hq, Hkv, D } = spec;
  checkDims(op, { B, T, Hq, Hkv, D }, Hq, Hkv);
  if (spec.segments) checkTensor(spec.segments, [B, T], 'i32', op, 'segments', '(B, T)');
}

// ---- forward ----------------------------------------------------------------------------------

export function attentionForward(
  rt: GpuRuntime,
  q: Tensor, // (B, T, Hq, D)
  k: Tensor, // (B, T, Hkv, D)
  v: Tensor, // (B, T, Hkv, D)
  spec: AttentionSpec,
  outs: { out?: Tensor; lse?: Tensor } = {},
): { out: Tensor; lse: Tensor } {
  const op = 'attentionForward';
  checkSpec(op, spec);
  const { B, T, Hq, Hkv, D } = spec;
  checkTensor(q, [B, T, Hq, D], 'f32', op, 'q', '(B, T, Hq, D)');
  checkTensor(k, [B, T, Hkv, D], 'f32', op, 'k', '(B, T, Hkv, D)');
  checkTensor(v, [B, T, Hkv, D], 'f32', op, 'v', '(B, T, Hkv, D)');
  const out = outs.out ?? rt.empty([B, T, Hq, D], 'f32', 'attention:out'); // (B, T, Hq, D)
  const lse = outs.lse ?? rt.empty([B, Hq, T], 'f32', 'attention:lse'); // (B, Hq, T)
  checkTensor(out, [B, T, Hq, D], 'f32', op, 'out', '(B, T, Hq, D)');
  checkTensor(lse, [B, Hq, T], 'f32', op, 'lse', '(B, Hq, T)');
  const p = params({ B, Tq: T, Tk: T, Hq, Hkv, scale: spec.scale ?? 1 / Math.sqrt(D), hasSegments: !!spec.segments, hasOffsets: false, pastLen: 0 });
  if (variantFor(rt, spec, op) === 'row') {
    const shape = { B, Tq: T, Hq, D, rows: rowBlockFor(spec, T, op) };
    rowForward(rt, 'attention_forward', shape, p, { q, k, v, segments: spec.segments ?? dummyI32(rt), offsets: dummyI32(rt), out, lse });
    return { out, lse };
  }
  const tiles = tilesFor(rt, 'forward', spec, op);
  rt.dispatch({
    op: 'attention_forward',
    code: shaderFor('forward', D, tiles),
    entryPoint: 'forward_attention',
    params: p,
    bindings: [q, k, v, spec.segments ?? dummyI32(rt), dummyI32(rt), out, lse],
    workgroups: [Math.ceil(T / tiles.blockQ), Hq, B],
  });
  return { out, lse };
}

// ---- backward ---------------------------------------------------------------------------------

export function attentionBackward(
  rt: GpuRuntime,
  dout: Tensor, // (B, T, Hq, D)
  q: Tensor, // (B, T, Hq, D)
  k: Tensor, // (B, T, Hkv, D)
  v: Tensor, // (B, T, Hkv, D)
  out: Tensor, // (B, T, Hq, D) forward output
  lse: Tensor, // (B, Hq, T) forward log-sum-exp
  spec: AttentionSpec,
  outs: { dq?: Tensor; dk?: Tensor; dv?: Tensor; stats?: Tensor } = {},
): { dq: Tensor; dk: Tensor; dv: Tensor } {
  const op = 'attentionBackward';
  checkSpec(op, spec);
  const { B, T, Hq, Hkv, D } = spec;
  for (const [name, t] of [['dout', dout], ['q', q], ['out', out]] as const) checkTensor(t, [B, T, Hq, D], 'f32', op, name, '(B, T, Hq, D)');
  checkTensor(k, [B, T, Hkv, D], 'f32', op, 'k', '(B, T, Hkv, D)');
  checkTensor(v, [B, T, Hkv, D], 'f32', op, 'v', '(B, T, Hkv, D)');
  checkTensor(lse, [B, Hq, T], 'f32', op, 'lse', '(B, Hq, T)');
  const dq = outs.dq ?? rt.empty([B, T, Hq, D], 'f32', 'attention:dq'); // (B, T, Hq, D)
  const dk = outs.dk ?? rt.empty([B, T, Hkv, D], 'f32', 'attention:dk'); // (B, T, Hkv, D)
  const dv = outs.dv ?? rt.empty([B, T, Hkv, D], 'f32', 'attention:dv'); // (B, T, Hkv, D)
  const stats = outs.stats ?? rt.empty([B, Hq, T, 2], 'f32', 'attention:stats'); // (B, Hq, T, 2) scratch
  checkTensor(dq, [B, T, Hq, D], 'f32', op, 'dq', '(B, T, Hq, D)');
  checkTensor(dk, [B, T, Hkv, D], 'f32', op, 'dk', '(B, T, Hkv, D)');
  checkTensor(dv, [B, T, Hkv, D], 'f32', op, 'dv', '(B, T, Hkv, D)');
  checkTensor(stats, [B, Hq, T, 2], 'f32', op, 'stats', '(B, Hq, T, 2)');
  const segments = spec.segments ?? dummyI32(rt);
  const p = params({ B, Tq: T, Tk: T, Hq, Hkv, scale: spec.scale ?? 1 / Math.sqrt(D), hasSegments: !!spec.segments, hasOffsets: false, pastLen: 0 });

  if (variantFor(rt, spec, op) === 'row') {
    const shape = { B, T, Hq, Hkv, D, rows: rowBlockFor(spec, T, op) };
    rowBackward(rt, shape, p, { dout, q, k, v, out, lse, segments, stats, dq, dk, dv });
    if (!outs.stats) rt.release(stats);
    return { dq, dk, dv };
  }
  // (lse, Δ = rowsum(dout ∘ out)) per query row
  const statsTiles: AttentionTiles = { blockQ: 1, blockK: 1, threads: STATS_THREADS };
  rt.dispatch({
    op: 'attention_backward_stats',
    code: shaderFor('stats', D, statsTiles),
    entryPoint: 'backward_attention_stats',
    params: p,
    bindings: [dout, out, lse, stats],
    workgroups: [Math.ceil(T / STATS_THREADS), Hq, B],
  });
  const tq = tilesFor(rt, 'dq', spec, op);
  rt.dispatch({
    op: 'attention_backward_dq',
    code: shaderFor('dq', D, tq),
    entryPoint: 'backward_attention_dq',
    params: p,
    bindings: [q, k, v, segments, dout, stats, dq],
    workgroups: [Math.ceil(T / tq.blockQ), Hq, B],
  });
  const tk = tilesFor(rt, 'dkdv', spec, op);
  rt.dispatch({
    op: 'attention_backward_dkdv',
    code: shaderFor('dkdv', D, tk),
    entryPoint: 'backward_attention_dkdv',
    params: p,
    bindings: [q, k, v, segments, dout, stats, dk, dv],
    workgroups: [Math.ceil(T / tk.blockK), Hkv, B],
  });
  if (!outs.stats) rt.release(stats); // later users of the buffer are ordered after these dispatches
  return { dq, dk, dv };
}

// ---- decode (KV cache) ------------------------------------------------------------------------

export interface AttentionDecodeSpec {
  B: number;
  /** New query rows per batch row (1 for token-by-token generation). */
  Tq: number;
  /** Cache capacity in rows. */
  Tmax: number;
  Hq: number;
  Hkv: number;
  D: number;
  /** Score scale; default 1 / sqrt(D). */
  scale?: number;
  /**
   * Rows already in the cache before the new ones: one number for every batch row, or a (B) i32
   * tensor. Query row t sits at position pastLen + t; its own k/v must already be written there.
   */
  pastLen: number | Tensor;
  /** (B, Tmax) i32 segment ids of the cached positions (as in training; negative = padding). */
  segments?: Tensor;
  tiles?: Partial<Record<'forward', AttentionTiles>>;
  /** Kernel variant; default chooseAttentionVariant for the device. */
  variant?: AttentionVariant;
  /** Row kernel: query rows per invocation; default chooseRowBlock (≤ Tq). */
  rowBlock?: number;
}

/**
 * Attention of Tq new queries against a KV cache: row t of batch row b attends cache rows
 * 0 … pastLen[b] + t. Same kernel as the training forward (future cache rows are never read).
 * A per-row pastLen tensor is not range-checked on the host: keep pastLen[b] + Tq ≤ Tmax.
 */
export function attentionDecode(
  rt: GpuRuntime,
  q: Tensor, // (B, Tq, Hq, D)
  kCache: Tensor, // (B, Tmax, Hkv, D)
  vCache: Tensor, // (B, Tmax, Hkv, D)
  spec: AttentionDecodeSpec,
  outs: { out?: Tensor; lse?: Tensor } = {},
): { out: Tensor; lse: Tensor } {
  const op = 'attentionDecode';
  const { B, Tq, Tmax, Hq, Hkv, D, pastLen } = spec;
  checkDims(op, { B, Tq, Tmax, Hq, Hkv, D }, Hq, Hkv);
  if (typeof pastLen === 'number') {
    if (!Number.isInteger(pastLen) || pastLen < 0) throw new Error(`${op}: pastLen = ${pastLen} must be a non-negative integer`);
    if (pastLen + Tq > Tmax) {
      throw new Error(`${op}: pastLen ${pastLen} + Tq ${Tq} rows exceed the cache capacity Tmax = ${Tmax}: allocate a longer KV cache or start a new sequence`);
    }
  } else {
    checkTensor(pastLen, [B], 'i32', op, 'pastLen', '(B)');
  }
  if (spec.segments) checkTensor(spec.segments, [B, Tmax], 'i32', op, 'segments', '(B, Tmax)');
  checkTensor(q, [B, Tq, Hq, D], 'f32', op, 'q', '(B, Tq, Hq, D)');
  checkTensor(kCache, [B, Tmax, Hkv, D], 'f32', op, 'kCache', '(B, Tmax, Hkv, D)');
  checkTensor(vCache, [B, Tmax, Hkv, D], 'f32', op, 'vCache', '(B, Tmax, Hkv, D)');
  const out = outs.out ?? rt.empty([B, Tq, Hq, D], 'f32', 'attention:decodeOut'); // (B, Tq, Hq, D)
  const lse = outs.lse ?? rt.empty([B, Hq, Tq], 'f32', 'attention:decodeLse'); // (B, Hq, Tq)
  checkTensor(out, [B, Tq, Hq, D], 'f32', op, 'out', '(B, Tq, Hq, D)');
  checkTensor(lse, [B, Hq, Tq], 'f32', op, 'lse', '(B, Hq, Tq)');
  const perRow = typeof pastLen !== 'number';
  const p = params({ B, Tq, Tk: Tmax, Hq, Hkv, scale: spec.scale ?? 1 / Math.sqrt(D), hasSegments: !!spec.segments, hasOffsets: perRow, pastLen: perRow ? 0 : pastLen });
  const segments = spec.segments ?? dummyI32(rt);
  const offsets = perRow ? pastLen : dummyI32(rt);
  if (variantFor(rt, spec, op) === 'row') {
    rowForward(rt, 'attention_decode', { B, Tq, Hq, D, rows: rowBlockFor(spec, Tq, op) }, p, { q, k: kCache, v: vCache, segments, offsets, out, lse });
    return { out, lse };
  }
  // few query rows: shrink the query side of the tile, the key side grows into the freed memory
  const tiles = tilesFor(rt, 'forward', spec, op, 2 ** Math.ceil(Math.log2(Tq)));
  rt.dispatch({
    op: 'attention_decode',
    code: shaderFor('forward', D, tiles),
    entryPoint: 'forward_attention',
    params: p,
    bindings: [q, kCache, vCache, segments, offsets, out, lse],
    workgroups: [Math.ceil(Tq / tiles.blockQ), Hq, B],
  });
  return { out, lse };
}
