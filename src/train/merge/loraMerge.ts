// LoRA-aware merging. Adapters of one base are merged through their weight updates, never by
// averaging A and B separately (Σ w_i B_i A_i ≠ (Σ w_i B_i)(Σ w_i A_i)):
//   - any method: loraDeltaSource shows "base + s·B·A" for each adapter (merged into the base, one
//     tensor at a time), so every method merges the adapters' real updates into a full model;
//   - linear / task arithmetic, exactly, as an adapter (PEFT's "cat" combination):
//       Σ_i c_i s_i B_i A_i = [c_1 s_1 B_1 | … | c_n s_n B_n] · [A_1; …; A_n]
//     a rank-Σr_i adapter with scale 1 (alpha = rank); c_i = w_i (task arithmetic, ×λ) or w_i/Σw (linear).
import type { TensorSourceModel } from './mergeStream';

/** An adapter as PEFT stores it: tensors by PEFT name, and its r and alpha (s = alpha / r). */
export interface AdapterWeights {
  label: string;
  rank: number;
  alpha: number;
  tensors: Map<string, Float32Array>;
}

const PEFT_NAME = /^base_model\.model\.(.+)\.lora_([AB])\.weight$/;

/** Base weight name → { A, B } of every adapted module of an adapter. */
export function adapterModules(a: AdapterWeights): Map<string, { A: Float32Array; B: Float32Array }> {
  const parts = new Map<string, { A?: Float32Array; B?: Float32Array }>();
  for (const [name, data] of a.tensors) {
    const m = PEFT_NAME.exec(name);
    if (!m) throw new Error(`${a.label}: '${name}' is not a PEFT LoRA tensor name (base_model.model.<module>.lora_A.weight)`);
    const entry = parts.get(`${m[1]}.weight`) ?? {};
    entry[m[2] as 'A' | 'B'] = data;
    parts.set(`${m[1]}.weight`, entry);
  }
  const out = new Map<string, { A: Float32Array; B: Float32Array }>();
  for (const [base, { A, B }] of parts) {
    if (!A || !B) throw new Error(`${a.label}: module '${base}' has lora_${A ? 'A' : 'B'} but no lora_${A ? 'B' : 'A'}`);
    out.set(base, { A, B });
  }
  return out;
}

/** W + s·B·A for W (out, in), A (r, in), B (out, r); a new array. */
export function addLoraDelta(W: Float32Array, A: Float32Array, B: Float32Array, rank: number, scale: number, label: string): Float32Array {
  const inF = A.length / rank;
  const outF = B.length / rank;
  if (!Number.isInteger(inF) || !Number.isInteger(outF) || outF * inF !== W.length) {
    throw new Error(`${label}: adapter shapes A (${rank}, ${inF}) and B (${outF}, ${rank}) do not fit a weight of ${W.length} values`);
  }
  const out = W.slice();
  for (let o = 0; o < outF; o++) {
    for (let k = 0; k < rank; k++) {
      const b = scale * B[o * rank + k];
      if (b === 0) continue;
      const row = o * inF;
      const a = k * inF;
      for (let i = 0; i < inF; i++) out[row + i] += b * A[a + i];
    }
  }
  return out;
}

/** The model "base with this adapter merged in", read one tensor at a time. */
export function loraDeltaSource(base: TensorSourceModel, adapter: AdapterWeights): TensorSourceModel {
  const modules = adapterModules(adapter);
  const names = new Set(base.names());
  for (const m of modules.keys()) {
    if (!names.has(m)) throw new Error(`${adapter.label} adapts '${m}', which ${base.label} does not have: the adapter belongs to another base model`);
  }
  const scale = adapter.alpha / adapter.rank;
  return {
    label: adapter.label,
    names: () => base.names(),
    shape: (name) => base.shape(name),
    read: async (name) => {
      const W = await base.read(name);
      const m = modules.get(name);
      return m ? addLoraDelta(W, m.A, m.B, adapter.rank, scale, `${adapter.label}: '${name}'`) : W;
    },
  };
}

/**
 * Exact linear / task-arithmetic merge of adapters as one adapter (rank Σr_i, alpha = rank, so s = 1).
 * coefficients c_i: task arithmetic λ·w_i; linear w_i / Σw. Modules an adapter lacks get zero blocks.
 */
export function concatAdapters(adapters: AdapterWeights[], coefficients: number[], label = 'merged adapter'): AdapterWeights {
  if (adapters.length !== coefficients.length) throw new Error(`concatAdapters: ${adapters.length} adapters, ${coefficients.length} coefficients`);
  const modules = adapters.map(adapterModules);
  const rank = adapters.reduce((s, a) => s + a.rank, 0);
  const all = new Set(modules.flatMap((m) => [...m.keys()]));
  const tensors = new Map<string, Float32Array>();
  for (const base of all) {
    const first = modules.find((m) => m.has(base))!.get(base)!;
    const firstRank = adapters[modules.findIndex((m) => m.has(base))].rank;
    const inF = first.A.length / firstRank;
    const outF = first.B.length / firstRank;
    const A = new Float32Array(rank * inF); // (Σr, in): the A_i stacked
    const B = new Float32Array(outF * rank); // (out, Σr): the c_i s_i B_i side by side
    let r0 = 0;
    adapters.forEach((a, i) => {
      const m = modules[i].get(base);
      if (m) {
        if (m.A.length !== a.rank * inF || m.B.length !== outF * a.rank) throw new Error(`${a.label}: '${base}' has other shapes than in ${adapters[0].label}`);
        A.set(m.A, r0 * inF);
        const c = coefficients[i] * (a.alpha / a.rank);
        for (let o = 0; o < outF; o++) for (let k = 0; k < a.rank; k++) B[o * rank + r0 + k] = c * m.B[o * a.rank + k];
      }
      r0 += a.rank;
    });
    const module = base.replace(/\.weight$/, '');
    tensors.set(`base_model.model.${module}.lora_A.weight`, A);
    tensors.set(`base_model.model.${module}.lora_B.weight`, B);
  }
  return { label, rank, alpha: rank, tensors };
}
