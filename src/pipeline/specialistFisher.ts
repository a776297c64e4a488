// Each specialist's diagonal Fisher on its own task set, for a Fisher merge (train/merge/fisher.ts):
// FISHER_EXAMPLES verified expert conversations of the task set's **train** split (never validation
// or test: the merge is part of training), encoded as SFT encodes them, through fisherDiagonal.
import { mixFamily } from '../envs/taskMix';
import type { GpuRuntime } from '../gpu/runtime';
import type { ModelConfig } from '../model/config';
import type { Tokenizer } from '../tokenizer';
import { FISHER_EXAMPLES } from '../train/merge/fisher';
import { fisherDiagonal } from '../train/merge/fisherDiagonal';
import { defaultRenderer } from '../train/rl/rollout';
import { mixSeeds } from '../util/seeds';
import type { PipelineConfig } from './config';
import { syntheticSftDocs } from './sftData';
import type { PendingSpecialists } from './specialists';

export async function specialistFisher(
  rt: GpuRuntime, cfg: PipelineConfig, model: ModelConfig, tok: Tokenizer, pending: PendingSpecialists, log: (line: string) => void = () => {},
): Promise<Map<string, Float32Array>[]> {
  const out: Map<string, Float32Array>[] = [];
  for (const m of pending.models) {
    const t0 = performance.now();
    const { docs } = await syntheticSftDocs(mixFamily([m.entry]), FISHER_EXAMPLES, mixSeeds(cfg.seed, 0xf15e), tok, defaultRenderer(tok), cfg.context.maxTotalTokens, { maxTurns: cfg.context.maxTurns });
    if (docs.length === 0) throw new Error(`fisher: no ${m.label} conversation fits the context of ${cfg.context.maxTotalTokens} tokens`);
    out.push(await fisherDiagonal(rt, model, m.weights, docs, tok.padId));
    log(`fisher: specialist ${m.label}, ${docs.length} train conversations of its task set, ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  return out;
}
