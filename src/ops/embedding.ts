// Token embedding lookup and its scatter-add backward (shaders/embedding.wgsl).
import code from '../../shaders/embedding.wgsl?raw';
import type { GpuRuntime } from '../gpu/runtime';
import { packParams } from '../gpu/runtime';
import type { Tensor } from '../gpu/tensor';
import { grid1d } from './grid';

export interface EmbeddingSpec {
  /** Tokens. */
  N: number;
  /** Vocabulary size. */
  V: number;
  /** Embedding width. */
  C: number;
}

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
  if (table.size !== spec.V * spec.C) throw new Error(`${what}: table '${table.label}' has ${table.size} elements, needs V·C = ${spec.V}·${spec.C}`);
}

/** out (N, C) = table[ids]. */
export function embeddingForward(rt: GpuRuntime, ids: Tensor, table: Tensor, spec: EmbeddingSpec, out?: Tensor): Tensor {
  check(spec, ids, table, 'embeddingForward');
  const o = out ?? rt.empty([spec.N, spec.C], 'f32', 'embedding.out');
  rt.dispatch({
    op: 'embedding_forward', code, entryPoint: 'forward_embedding',
    params: packParams([['u32', spec.N], ['u32', spec.C], ['u32', spec.V]]),
    bindings: { 1: ids, 2: table, 3: o }, workgroups: grid1d(spec.N * spec.C, 256),
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
  rt.dispatch({
    op: 'embedding_backward', code, entryPoint: 'backward_embedding',
    params: packParams([['u32', spec.N], ['u32', spec.C], ['u32', spec.V]]),
    bindings: { 1: ids, 4: dout, 5: d }, workgroups: grid1d(spec.C, 256),
  });
  return d;
}
