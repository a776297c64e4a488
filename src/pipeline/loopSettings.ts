// The settings a stage's training loop runs with, derived from the pipeline config: rollout limits
// from the context, a GRPO stage's loop (seed from its stream, credit, row layout) and the largest
// rows × tokens the whole config trains at (what a memory fit check must allow).
import { PRESETS } from '../model/config';
import { grpoConfig } from '../train/rl/grpo';
import { DEFAULT_GRPO_TRAINER } from '../train/rl/grpoTrainer';
import type { RlLoopConfig } from '../train/rl/rlLoop';
import { DEFAULT_ROLLOUT, type RolloutConfig } from '../train/rl/rollout';
import { mixSeeds } from '../util/seeds';
import type { GrpoStageConfig, PipelineConfig, StageConfig } from './config';
import { stageStreamAfter } from './stageStream';
import { rowsForLogits, sftRowLength } from './trainingRows';

/** Rollout limits of the config's context at group size G and temperature t. */
export function rolloutConfig(cfg: PipelineConfig, groupSize: number, temperature: number): RolloutConfig {
  const c = cfg.context;
  return { ...DEFAULT_ROLLOUT, groupSize, temperature, maxTurns: c.maxTurns, maxNewTokensPerTurn: c.maxNewTokensPerTurn, maxTotalTokens: c.maxTotalTokens };
}

/**
 * The GRPO loop settings of a stage. Credit (train/rl/grpo/credit.ts): 'trajectory' = plain GRPO
 * (every policy token gets the trajectory's advantage); 'turn' = reward-to-go by turn (a turn's tokens
 * are credited with what its turn and the later ones earned, not with earlier turns' rewards);
 * 'component' = turn, plus components the env places inside a turn (Reward.decidedAt) leave the
 * advantage of later tokens. Groups hold their common opening once per row (sharePrefix). The
 * stage's rewardWeights override the environments' component weights in the training reward only.
 */
export function grpoLoopConfig(cfg: PipelineConfig, s: GrpoStageConfig, stageIndex: number, stagesBefore: readonly StageConfig[] = []): RlLoopConfig {
  const G = s.groupSize;
  const c = cfg.context;
  const singleTurn = c.maxTurns === 1;
  // Multi-turn groups share their opening too (system block + first user turn, ~60 % of a short
  // service or coding episode): rows of maxTotalTokens, a group split into blocks as needed.
  const seqLen = singleTurn ? Math.ceil((c.maxTotalTokens + (G - 1) * c.maxNewTokensPerTurn) / 64) * 64 : c.maxTotalTokens;
  const microBatchRows = singleTurn ? 2 : rowsForLogits(seqLen, PRESETS[cfg.preset].vocabSize, 4);
  return {
    steps: s.steps, tasksPerStep: s.tasksPerStep, seed: mixSeeds(cfg.seed, 0x9e90, stageStreamAfter(stagesBefore, cfg.stages, stageIndex)), warmupSteps: s.warmupSteps, minLrRatio: s.minLrRatio,
    maxSamplingRounds: s.samplingRounds,
    ...(s.randomValues ? { randomValues: s.randomValues } : {}),
    rollout: rolloutConfig(cfg, G, s.temperature),
    trainer: {
      ...DEFAULT_GRPO_TRAINER,
      grpo: grpoConfig('default', { groupSize: G, dynamicSampling: true, componentCredit: s.credit === 'component', turnCredit: s.credit !== 'trajectory', klCoef: s.klCoef, rewardWeights: { ...s.rewardWeights }, entropyCoef: s.entropyCoef ?? 0, scaleByStd: (s.advantage ?? 'std') === 'std' }),
      sharePrefix: true, seqLen, microBatchRows, lr: s.lr, pack: !singleTurn, temperature: s.temperature,
    },
  };
}

/** Rows × tokens the pipeline trains at (the largest SFT batch or GRPO micro-batch): what a fit check must allow. */
export function trainingShape(cfg: PipelineConfig): { batch: number; seqLen: number; referenceCopy: boolean } {
  let best = { batch: 1, seqLen: cfg.context.maxTotalTokens };
  let referenceCopy = false;
  cfg.stages.forEach((s, i) => {
    let shape: { batch: number; seqLen: number } | null = null;
    if (s.kind === 'sft') shape = { batch: s.batchSize, seqLen: sftRowLength(cfg) };
    if (s.kind === 'grpo') {
      const t = grpoLoopConfig(cfg, s, i).trainer;
      shape = { batch: t.microBatchRows, seqLen: t.seqLen };
      referenceCopy ||= s.klCoef > 0;
    }
    if (shape && shape.batch * shape.seqLen > best.batch * best.seqLen) best = shape;
  });
  return { ...best, referenceCopy };
}
