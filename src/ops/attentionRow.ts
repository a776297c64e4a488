// Row variant of the attention kernels (shaders/attention_row.wgsl), for CPU adapters: each
// invocation owns ROWS consecutive query rows (forward, dq) or key rows (dk/dv) of one head in
// registers; no workgroup memory, no barriers. Same spec, layouts and semantics as the tile
// variant; src/ops/attention.ts validates and picks the variant, this file composes and dispatches.
//
// Measured times (forward + backward at the nano shape, both CPU adapters, tile vs row): the table at
// the top of shaders/attention_row.wgsl.
import commonCode from '../../shaders/attention_common.wgsl?raw';
import rowCode from '../../shaders/attention_row.wgsl?raw';
import type { GpuRuntime } from '../gpu/runtime';
import type { Tensor } from '../gpu/tensor';
import { unrollLoops } from './attentionRowUnroll';

/** Invocations per workgroup (row blocks of one (b, head)); 16–64 measured equal on SwiftShader. */
export const ROW_THREADS = 32;
/**
 * Largest head dim of the row kernels. At D = 128 their unrolled code took 16–25 s to compile on
 * SwiftShader (ROWS 1–2), for 4× over the tile kernels' speed; above 64 the tile kernels run.
 */
export const ROW_MAX_D = 64;
/** Most rows one invocation may own: compiling 16 rows at D = 24 took SwiftShader > 16 GB of memory. */
export const ROW_BLOCK_MAX = 8;
/**
 * Default ROWS · D: 8 rows at D ≤ 32, 4 at D = 64. CPU time of forward + backward on SwiftShader at
 * D = 24 for ROWS 1, 2, 4, 8: 1 : 0.70 : 0.61 : 0.43; compiling the ROWS = 8 kernels takes 2–8 s.
 * At D = 64 llvmpipe ran 4 rows 2× faster than 8 (spills), SwiftShader 8 rows 1.4× faster than 4.
 */
const ROW_BLOCK_ELEMENTS = 256;

/** The row kernels read head rows as vec4s and keep ROWS · D floats per array in registers. */
export function rowVariantFits(D: number): boolean {
  return D % 4 === 0 && D <= ROW_MAX_D;
}

/**
 * Rows per invocation: a loaded k/v (or q/dO) row serves ROWS rows, so more is faster until the
 * register arrays spill too far; a power of two, never more than the n rows there are (decode).
 */
export function chooseRowBlock(D: number, n: number): number {
  const tuned = Math.min(8, 2 ** Math.floor(Math.log2(ROW_BLOCK_ELEMENTS / D)));
  let rows = 1;
  while (rows < tuned && rows < n) rows *= 2;
  return rows;
}

/** spec.rowBlock (checked) or chooseRowBlock. */
export function rowBlockFor(spec: { D: number; rowBlock?: number }, n: number, op: string): number {
  const rows = spec.rowBlock;
  if (rows === undefined) return chooseRowBlock(spec.D, n);
  if (!Number.isInteger(rows) || rows < 1 || rows > ROW_BLOCK_MAX) {
    throw new Error(`${op}: rowBlock = ${rows} must be an integer from 1 to ${ROW_BLOCK_MAX} (rows per invocation of the row kernels)`);
  }
  return rows;
}

const composed = new Map<string, string>();

/** Constants + common part + row kernels, with the D4 and ROWS loops unrolled; one string per (D, rows). */
function rowShader(D: number, rows: number): string {
  const key = `${D}:${rows}`;
  let code = composed.get(key);
  if (!code) {
    const header = `const HEAD_DIM: u32 = ${D}u;\nconst ROWS: u32 = ${rows}u;\nconst THREADS: u32 = ${ROW_THREADS}u;\n`;
    // constant indices keep the per-row arrays in registers on SwiftShader (3× at D = 24)
    code = unrollLoops(`${header}\n${commonCode}\n${rowCode}`, { D4: D / 4, ROWS: rows });
    composed.set(key, code);
  }
  return code;
}

/** Workgroups for n rows of H heads and B batch rows, `rows` rows per invocation. */
function grid(n: number, rows: number, H: number, B: number): [number, number, number] {
  return [Math.ceil(Math.ceil(n / rows) / ROW_THREADS), H, B];
}

/** Forward (training, or decode against a KV cache): out and lse. `params` as packed by attention.ts. */
export function rowForward(
  rt: GpuRuntime,
  op: 'attention_forward' | 'attention_decode',
  shape: { B: number; Tq: number; Hq: number; D: number; rows: number },
  params: ArrayBuffer,
  t: {
    q: Tensor; // (B, Tq, Hq, D)
    k: Tensor; // (B, Tk, Hkv, D)
    v: Tensor; // (B, Tk, Hkv, D)
    segments: Tensor; // (B, Tk) i32, or a dummy
    offsets: Tensor; // (B) i32 past lengths, or a dummy
    out: Tensor; // (B, Tq, Hq, D)
    lse: Tensor; // (B, Hq, Tq)
  },
): void {
  const { B, Tq, Hq, D, rows } = shape;
  rt.dispatch({
    op,
    code: rowShader(D, rows),
    entryPoint: 'forward_attention_row',
    params,
    bindings: { 1: t.q, 2: t.k, 3: t.v, 4: t.segments, 5: t.offsets, 6: t.out, 7: t.lse },
    workgroups: grid(Tq, rows, Hq, B),
  });
}

/** Backward: row stats (lse, Δ), then dq per query block and dk, dv per key block. */
export function rowBackward(
  rt: GpuRuntime,
  shape: { B: number; T: number; Hq: number; Hkv: number; D: number; rows: number },
  params: ArrayBuffer,
  t: {
    dout: Tensor; // (B, T, Hq, D)
    q: Tensor; // (B, T, Hq, D)
    k: Tensor; // (B, T, Hkv, D)
    v: Tensor; // (B, T, Hkv, D)
    out: Tensor; // (B, T, Hq, D)
    lse: Tensor; // (B, Hq, T)
    segments: Tensor; // (B, T) i32, or a dummy
    stats: Tensor; // (B, Hq, T, 2) scratch
    dq: Tensor; // (B, T, Hq, D)
    dk: Tensor; // (B, T, Hkv, D)
    dv: Tensor; // (B, T, Hkv, D)
  },
): void {
  const { B, T, Hq, Hkv, D, rows } = shape;
  const code = rowShader(D, rows);
  rt.dispatch({
    op: 'attention_backward_stats',
    code,
    entryPoint: 'backward_attention_stats_row',
    params,
    bindings: { 8: t.dout, 13: t.out, 14: t.lse, 15: t.stats },
    workgroups: grid(T, 1, Hq, B),
  });
  rt.dispatch({
    op: 'attention_backward_dq',
    code,
    entryPoint: 'backward_attention_dq_row',
    params,
    bindings: { 1: t.q, 2: t.k, 3: t.v, 4: t.segments, 8: t.dout, 9: t.stats, 10: t.dq },
    workgroups: grid(T, rows, Hq, B),
  });
  rt.dispatch({
    op: 'attention_backward_dkdv',
    code,
    entryPoint: 'backward_attention_dkdv_row',
    params,
    bindings: { 1: t.q, 2: t.k, 3: t.v, 4: t.segments, 8: t.dout, 9: t.stats, 11: t.dk, 12: t.dv },
    workgroups: grid(T, rows, Hkv, B),
  });
}
