// Token embedding lookup and its scatter-add backward (shaders/embedding.wgsl). A table stored as
// row parts (one binding each, src/model/weights.ts) is looked up one part per dispatch: `row0`
// says which vocabulary rows the bound table holds; the dispatches of all parts fill every row.
// A frozen table may be stored as packed f16 (src/ops/matmulPackedF16.ts PackedF16Tensor).
import code from '../../shaders/embedding.wgsl?raw';
import type { GpuRuntime } from '../gpu/runtime';
import { packParams } from '../gpu/runtime';
import type { Tensor } from '../gpu/tensor';
import { grid1d } from './grid';
import { isPackedF16 } from './matmulPackedF16';

export interface EmbeddingSpec {
  /** Tokens. */
  N: number;
  /** Rows of the bound table (the whole vocabulary, or one part's rows). */
  V: number;
  /** Embedding width. */
  C: number;
  /** First vocabulary row of the bound table when it is one part of a larger one (default 0). */
  row0?: number;
  /** The table is one of several parts: ids outside it leave their output rows untouched. */
  partial?: boolean;
}

const embeddingParams = (s: EmbeddingSpec) => packParams([['u32', s.N], ['u32', s.C], ['u32', s.V], ['u32', s.row0 ?? 0], ['u32', s.partial ? 1 : 0]]);

/** Throws naming the first id outside [0, V): the GPU would otherwise read zeros silently. */
export function checkTokenIds(ids: ArrayLike<number>, V: number, what = 'token ids'): void {
  for (let n = 0; n < ids.length; n++) {
    const id = ids[n];
    if (!(Number.isInteger(id) && id >= 0 && id < V)) {
      throw new Error(`${what}: position ${n} holds id ${id}, outside the vocabulary [0, ${V}); check the tokenizer matches the model`);
    }
  }
}

function check(spec: EmbeddingSpec, ids: Tensor, table: Tensor, what: string): void {
  if (ids.dtype !== 'i32') throw new Error(`${what}: ids must be an i32 tensor, got ${ids.dtype}`);
  if (ids.size !== spec.N) throw new Error(`${what}: ids has ${ids.size} elements, needs N = ${spec.N}`);
  const size = isPackedF16(table) ? table.logicalSize : table.size;
  if (size !== spec.V * spec.C) throw new Error(`${what}: table '${table.label}' has ${size} elements, needs V·C = ${spec.V}·${spec.C}`);
  if (spec.partial && spec.row0 === undefined) throw new Error(`${what}: a partial table needs its row0`);
}

/** out (N, C) = table[ids] (for a partial table: only the rows of ids it holds). */
export function embeddingForward(rt: GpuRuntime, ids: Tensor, table: Tensor, spec: EmbeddingSpec, out?: Tensor): Tensor {
  check(spec, ids, table, 'embeddingForward');
  if (spec.partial && !out) throw new Error('embeddingForward: a partial table writes into the output the other parts fill: pass `out`');
  const o = out ?? rt.empty([spec.N, spec.C], 'f32', 'embedding.out');
  const f16 = isPackedF16(table);
  rt.dispatch({
    op: f16 ? 'embedding_forward_f16' : 'embedding_forward', code, entryPoint: f16 ? 'forward_embedding_f16' : 'forward_embedding',
    params: embeddingParams(spec), bindings: f16 ? { 1: ids, 6: table, 3: o } : { 1: ids, 2: table, 3: o }, workgroups: grid1d(spec.N * spec.C, 256),
  });
  return o;
}

/**
 * dtable (V, C) += scatter of dout (N, C) by ids. Pass `dtable` to accumulate into an existing
 * gradient (tied embeddings: the LM head's gradient lands in the same table); otherwise a zeroed one is made.
 */
export function embeddingBackward(rt: GpuRuntime, dout: Tensor, ids: Tensor, spec: EmbeddingSpec, dtable?: Tensor): Tensor {
  if (dout.size !== spec.N * spec.C) throw new Error(`embeddingBackward: dout has ${dout.size} elements, needs N·C = ${spec.N}·${spec.C}`);
  const d = dtable ?? rt.zeros([spec.V, spec.C], 'f32', 'embedding.dtable');
  check(spec, ids, d, 'embeddingBackward');
  if (isPackedF16(d)) throw new Error(`embeddingBackward: '${d.label}' is a packed f16 table; frozen weights have no gradient`);
  rt.dispatch({
    op: 'embedding_backward', code, entryPoint: 'backward_embedding',
    params: embeddingParams(spec),
    bindings: { 1: ids, 4: dout, 5: d }, workgroups: grid1d(spec.C, 256),
  });
  return d;
}
