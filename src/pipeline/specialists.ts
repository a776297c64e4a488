// Task specialists and their merge (the Klear-AgentForge recipe): a training stage with
// `specialists: true` trains one copy of the model per task-mix entry, each from the same start on
// its entry alone; a later merge stage combines them with a method of src/train/merge, the start
// being the base of the task vectors (τ_i = θ_i − θ_start). Host-side and GPU-free: the runner
// downloads each specialist once, and the merge streams tensor by tensor through mergeModels.
import { taskSetName } from '../envs/taskMix';
import { mergeModels, memorySink, memorySource } from '../train/merge/mergeStream';
import { mergeMethod, mergeOptions, type MergeOptions } from '../train/merge/methods';
import { mixSeeds } from '../util/seeds';
import type { MergeStageConfig, PipelineConfig, StageConfig } from './config';
import type { PipelineHooks } from './runnerTypes';
import { stageStreamAfter } from './stageStream';

type Weights = Map<string, Float32Array>;

/** One trained specialist: its task-mix entry and its weights (HF names, f32). */
export interface Specialist {
  /** "function-calling/route4": the task set it trained on. */
  label: string;
  entry: PipelineConfig['tasks'][number];
  weights: Weights;
}

/** Specialists trained and not merged yet, with the model they all started from. */
export interface PendingSpecialists {
  /** The first stage that trained them. */
  stage: number;
  base: Weights;
  models: Specialist[];
  /** Each specialist's diagonal Fisher on its own task set (Fisher merging), in `models` order; set by the merge stage that needs it. */
  fisher?: Weights[];
}

/** What a merge stage did (PipelineResult.merges). */
export interface MergeRecord {
  stage: number;
  method: string;
  /** The specialists' labels, in the order of `options.weights`. */
  specialists: string[];
  options: MergeOptions;
  parameters: number;
}

export const specialistLabel = (e: Pick<PipelineConfig['tasks'][number], 'family' | 'level'>): string => taskSetName(e);

/** The seed of merge stage `stage` of a run (DARE's drops), from its stream (stageStream.ts: the k-th merge stage): the same for the runner and a merge table. */
export const mergeStageSeed = (cfg: PipelineConfig, stage: number, stagesBefore: readonly StageConfig[] = []): number => mixSeeds(cfg.seed, 0x3e26, stageStreamAfter(stagesBefore, cfg.stages, stage));

/** The merge options of a stage (defaults of the method; DARE's seed from the run's seed and the stage). */
export function stageMergeOptions(s: MergeStageConfig, count: number, seed: number): MergeOptions {
  const method = mergeMethod(s.method);
  return mergeOptions(method, count, {
    ...(s.weights ? { weights: s.weights } : {}), ...(s.density === undefined ? {} : { density: s.density }),
    ...(s.lambda === undefined ? {} : { lambda: s.lambda }), ...(s.t === undefined ? {} : { t: s.t }),
    ...(s.epsilon === undefined ? {} : { epsilon: s.epsilon }), seed,
  });
}

/** Merges the pending specialists: every tensor of the base, one at a time. */
export async function mergeSpecialists(stage: number, s: MergeStageConfig, pending: PendingSpecialists, seed: number): Promise<{ weights: Weights; record: MergeRecord }> {
  if (pending.models.length < 2) throw new Error(`stage ${stage} (merge): ${pending.models.length} specialist(s) to merge; a merge needs at least two`);
  const method = mergeMethod(s.method);
  const options = stageMergeOptions(s, pending.models.length, seed);
  const source = (label: string, w: Weights) => memorySource(label, new Map([...w].map(([name, data]) => [name, { shape: [data.length], data }])));
  const sink = memorySink();
  if (method.needsImportance && !pending.fisher) throw new Error(`stage ${stage} (merge): ${method.name} needs the specialists' Fisher diagonals, and none were computed (internal: the runner computes them before a ${method.name} merge)`);
  const { parameters } = await mergeModels({
    method, options, base: method.needsBase ? source('the start of the specialists', pending.base) : null,
    models: pending.models.map((m) => source(`specialist ${m.label}`, m.weights)), sink,
    ...(method.needsImportance ? { importance: pending.fisher!.map((f, k) => source(`Fisher of specialist ${pending.models[k].label}`, f)) } : {}),
  });
  const weights: Weights = new Map([...sink.tensors].map(([name, t]) => [name, t.data]));
  return { weights, record: { stage, method: method.name, specialists: pending.models.map((m) => m.label), options, parameters } };
}

/** A specialist's hooks: steps counted on from the specialists before it (offset), its name in the stage's detail. */
export function specialistHooks(h: PipelineHooks, offset: number, name: string): PipelineHooks {
  return {
    ...h,
    onStage: h.onStage && ((i, s, detail) => h.onStage!(i, s, `${name} · ${detail}`)),
    onSft: h.onSft && ((i, m) => h.onSft!(i, { ...m, step: m.step + offset })),
    onRlStep: h.onRlStep && ((i, r) => h.onRlStep!(i, { ...r, step: r.step + offset })),
    onCurve: h.onCurve && ((i, step, summary) => h.onCurve!(i, step + offset, summary)),
    onRollouts: h.onRollouts && ((i, step, trajs, info) => h.onRollouts!(i, step + offset, trajs, info)),
  };
}
