// A few evaluation tasks played greedily and shown as text — what `npm run demo` and `npm run learn
// --samples K` print beside the figures, so a reader sees what the model does, not only how often it
// is right. Tasks 0 … k−1 of the split for the run's first task set (the same tasks an evaluation of
// that split starts with), each "user: …\nassistant: …\ntool: …" without the system block (tools).
import { entryFamily } from '../envs/taskMix';
import type { GpuRuntime } from '../gpu/runtime';
import { GREEDY } from '../model/sampling';
import type { GpuWeights } from '../model/weights';
import { type Tokenizer, tokenizerForModel } from '../tokenizer';
import { modelTurnGenerator } from '../train/rl/modelGenerator';
import { rolloutBatch } from '../train/rl/rollout';
import type { EvalSplit, PipelineConfig } from './config';
import { rolloutConfig } from './loopSettings';

export interface SampleEpisode {
  text: string;
  success: boolean;
}

export async function sampleEpisodes(rt: GpuRuntime, w: GpuWeights, cfg: PipelineConfig, k: number, o: { split?: EvalSplit; tokenizer?: Tokenizer } = {}): Promise<SampleEpisode[]> {
  if (k <= 0) return [];
  const family = entryFamily(cfg.tasks[0]);
  const tasks = Array.from({ length: k }, (_, i) => family.generateTask(cfg.seed, i, o.split ?? 'test'));
  const trajs = await rolloutBatch({ family, tasks, tokenizer: o.tokenizer ?? (await tokenizerForModel(w.cfg)), generator: modelTurnGenerator(rt, w, GREEDY), config: rolloutConfig(cfg, 1, 0), seed: cfg.seed, policyVersion: 0 });
  return trajs.map((t) => ({ text: t.messages.filter((m) => m.role !== 'system').map((m) => `${m.role}: ${m.content}`).join('\n'), success: t.success }));
}
