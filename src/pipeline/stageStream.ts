// Which random stream a training or merge stage draws from (batch order, GRPO tasks and samples,
// LoRA initialisation, DARE masks): its place among the config's stages of the same kind — the
// first SFT stage, the second GRPO stage — not its place in the stage list. So adding, removing or
// moving an eval stage (a "before SFT" evaluation, a validation check) never changes what trains;
// and the SFT-vs-RL comparison, which runs the stages from the first GRPO stage as a config of their
// own, trains its stages on the streams they have in the whole config run at once (stageStreamAfter).
import type { StageConfig } from './config';

/**
 * The seeding scheme above, saved in every pipeline checkpoint (cursor `streams`): a run resumes only
 * on the streams it started on. 2: by place among stages of the same kind (2815bb9); 1, or no cursor:
 * by place in the stage list — such a checkpoint is refused for resuming (src/pipeline/resume.ts).
 */
export const STAGE_STREAMS_VERSION = 2;

/** The number of stages before `i` whose kind is one of `kinds` (default: stage i's own kind). */
export function stageStream(stages: readonly StageConfig[], i: number, kindsGiven?: readonly StageConfig['kind'][]): number {
  if (!(i >= 0 && i < stages.length)) throw new Error(`stage ${i} is not in a config of ${stages.length} stages`);
  const kinds = kindsGiven ?? [stages[i].kind];
  let n = 0;
  for (let j = 0; j < i; j++) if (kinds.includes(stages[j].kind)) n++;
  return n;
}

/**
 * stageStream of stage i of `stages` when `before` ran ahead of them in the same run (the SFT-vs-RL
 * comparison runs the stages from the first GRPO stage as a config of its own, after its prefix):
 * the stages before count, so a LoRA adapter, a later SFT or a merge there draws what it would in the
 * whole config.
 */
export function stageStreamAfter(before: readonly StageConfig[], stages: readonly StageConfig[], i: number, kinds?: readonly StageConfig['kind'][]): number {
  return stageStream([...before, ...stages], before.length + i, kinds);
}

/** Training kinds: LoRA adapters are drawn per training stage, whichever kind it is. */
export const TRAINING_KINDS: readonly StageConfig['kind'][] = ['sft', 'grpo'];
