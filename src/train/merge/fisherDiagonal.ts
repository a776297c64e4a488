// The diagonal empirical Fisher of a model on demonstrations of its task (Fisher merging, fisher.ts):
//   F[j] = (1/N) Σ_n (∂/∂θ_j Σ_t log p_θ(y_{n,t} | y_{n,<t}))²
// over N conversations, the sum over each conversation's scored (assistant) tokens — the
// per-example squared gradient of the sequence's log-likelihood (Matena & Raffel 2022 §2, with the
// demonstrated y instead of samples: the "empirical" Fisher). One conversation per forward/backward
// (per-example gradients cannot be summed before squaring); each gradient is downloaded and squared
// on the host, so the cost is a whole gradient's download per conversation — fine for the presets
// here, refused above FISHER_MAX_PARAMETERS (a 0.6B model's gradient is 2.4 GB in f32).
import type { EncodedDoc } from '../../data/packing';
import { packDocuments } from '../../data/packing';
import type { GpuRuntime } from '../../gpu/runtime';
import { planActivations, planBackwardScratch, releaseActivations, releaseBackwardScratch } from '../../model/activations';
import type { ModelConfig } from '../../model/config';
import { parameterTable } from '../../model/parameters';
import { supervisedStep } from '../../model/trainStep';
import { GpuWeights } from '../../model/weights';

export const FISHER_MAX_PARAMETERS = 50e6;

/** F (one Float32Array per HF tensor name) of `weights` on `docs`, one conversation at a time. */
export async function fisherDiagonal(
  rt: GpuRuntime, cfg: ModelConfig, weights: Map<string, Float32Array>, docs: readonly EncodedDoc[], padId: number,
): Promise<Map<string, Float32Array>> {
  if (docs.length === 0) throw new Error('fisher: no conversations to estimate the Fisher diagonal from');
  const table = parameterTable(cfg);
  const parameters = table.reduce((s, p) => s + p.shape.reduce((a, b) => a * b, 1), 0);
  if (parameters > FISHER_MAX_PARAMETERS) {
    throw new Error(`fisher: this model has ${(parameters / 1e6).toFixed(0)} M parameters; the Fisher diagonal downloads a whole gradient per conversation, which is built for models up to ${FISHER_MAX_PARAMETERS / 1e6} M: choose another merge method`);
  }
  const T = Math.max(...docs.map((d) => d.ids.length)); // (1, T): one conversation per row, padded
  const w = new GpuWeights(rt, cfg, weights);
  const acts = planActivations(rt, cfg, 1, T);
  const scratch = planBackwardScratch(rt, cfg, 1, T);
  const sums = new Map(table.map((p) => [p.name, new Float64Array(p.shape.reduce((a, b) => a * b, 1))]));
  try {
    for (const row of packDocuments([...docs], { seqLen: T, padId, pack: false })) {
      let scored = 0;
      for (const m of row.mask) scored += m;
      w.zeroGrads();
      // supervisedStep's loss is Σ mask·(−log p) / Σ mask; scaling by Σ mask gives the sequence's −log p
      await supervisedStep(rt, w, acts, scratch, row, scored);
      const grads = await w.downloadGrads();
      for (const [name, acc] of sums) {
        const g = grads.get(name)!;
        for (let j = 0; j < acc.length; j++) acc[j] += g[j] * g[j];
      }
    }
  } finally {
    releaseActivations(rt, acts);
    releaseBackwardScratch(rt, scratch);
    w.destroy();
  }
  return new Map([...sums].map(([name, acc]) => [name, Float32Array.from(acc, (v) => v / docs.length)]));
}
