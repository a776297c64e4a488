// A GRPO stage's reward-weight overrides: checked against the task mix's components when the run
// starts, carried into the trainer's GRPO config, and they change only the training reward.
import { describe, expect, it } from 'vitest';
import type { Reward } from '../envs/types';
import { trainingRewards } from '../train/rl/grpo';
import { type GrpoStageConfig, parsePipelineConfig } from './config';
import { grpoLoopConfig } from './loopSettings';
import { type LearningOptions, learningConfig, ROUTING_LEARNING } from './presets';
import { rewardWeightErrors, rewardWeightLine } from './rewardWeights';

const ROUTE4: LearningOptions = { ...ROUTING_LEARNING, tasks: [{ family: 'function-calling', level: 'route4', weight: 1 }], rlSteps: 2 };
const OUTCOME_ONLY = { exact_match: 1, function_choice: 0, arguments: 0, format: 0 };

function grpoOf(o: LearningOptions) {
  const cfg = learningConfig(o);
  const i = cfg.stages.findIndex((s) => s.kind === 'grpo');
  return { cfg, stage: cfg.stages[i] as GrpoStageConfig, trainer: grpoLoopConfig(cfg, cfg.stages[i] as GrpoStageConfig, i).trainer };
}

// route4's reward (functionCalling/environment.ts DEFAULT_WEIGHTS): a well-formed call of the right
// tool with a wrong argument earns format 0.1 + function_choice 0.2 = 0.3; a well-formed wrong tool 0.1.
const W = { format: 0.1, function_choice: 0.2, arguments: 0.2, exact_match: 0.5 };
const reward = (c: Record<string, number>): Reward => ({ components: c, weights: W, total: Object.entries(c).reduce((t, [k, v]) => t + W[k as keyof typeof W] * v, 0) });
const rightToolWrongCity = { reward: reward({ format: 1, function_choice: 1, arguments: 0, exact_match: 0 }), responseTokens: 12 };
const wrongTool = { reward: reward({ format: 1, function_choice: 0, arguments: 0, exact_match: 0 }), responseTokens: 12 };
const rightCall = { reward: reward({ format: 1, function_choice: 1, arguments: 1, exact_match: 1 }), responseTokens: 12 };

describe('GRPO reward-weight overrides', () => {
  it('reach the trainer: with the outcome alone, a right tool with a wrong argument earns what a wrong tool earns (0), a whole right call 1', () => {
    const plain = grpoOf(ROUTE4).trainer.grpo;
    expect(plain.rewardWeights).toEqual({});
    expect(trainingRewards([rightToolWrongCity, wrongTool, rightCall], plain).map((r) => +r.toFixed(6))).toEqual([0.3, 0.1, 1]);
    const outcome = grpoOf({ ...ROUTE4, rewardWeights: OUTCOME_ONLY }).trainer.grpo;
    expect(outcome.rewardWeights).toEqual(OUTCOME_ONLY);
    expect(trainingRewards([rightToolWrongCity, wrongTool, rightCall], outcome)).toEqual([0, 0, 1]);
  });

  it('are part of the serialisable config (a share link or checkpoint keeps them) and leave the eval stages alone', () => {
    const { cfg, stage } = grpoOf({ ...ROUTE4, rewardWeights: { exact_match: 1, function_choice: 0 } });
    expect(stage.rewardWeights).toEqual({ exact_match: 1, function_choice: 0 });
    expect(parsePipelineConfig(JSON.parse(JSON.stringify(cfg)))).toEqual(cfg);
    expect(cfg.stages.filter((s) => s.kind === 'eval').every((s) => !('rewardWeights' in s))).toBe(true);
  });

  it('name only components of the mix, and must leave some reward', () => {
    expect(rewardWeightErrors(grpoOf({ ...ROUTE4, rewardWeights: OUTCOME_ONLY }).cfg)).toEqual([]);
    expect(rewardWeightErrors(grpoOf(ROUTE4).cfg)).toEqual([]);
    const typo = rewardWeightErrors(grpoOf({ ...ROUTE4, rewardWeights: { exact_match: 1, exactmatch: 0 } }).cfg).map(rewardWeightLine);
    expect(typo).toEqual([expect.stringMatching(/^stages\.\d\.rewardWeights\.exactmatch: not a reward component of this task mix; its components are format, function_choice, arguments, exact_match$/)]);
    const none = rewardWeightErrors(grpoOf({ ...ROUTE4, rewardWeights: { exact_match: 0, function_choice: 0, arguments: 0, format: 0 } }).cfg);
    expect(none.map(rewardWeightLine)).toEqual([expect.stringMatching(/^stages\.\d\.rewardWeights: every component weighs 0/)]);
    // a service component is unknown to a function-calling mix, known once service is in it
    const mixed: LearningOptions = { ...ROUTE4, preset: 'nano-q', tasks: [...ROUTE4.tasks, { family: 'service', level: 'status', weight: 1 }], rewardWeights: { outcome: 1 } };
    expect(rewardWeightErrors(grpoOf(mixed).cfg)).toEqual([]);
    expect(rewardWeightErrors(grpoOf({ ...ROUTE4, rewardWeights: { outcome: 1 } }).cfg)).toHaveLength(1);
  });

  it('the schema refuses negative or non-finite weights and text that is not pairs', () => {
    const { cfg } = grpoOf(ROUTE4);
    const i = cfg.stages.findIndex((s) => s.kind === 'grpo');
    const withWeights = (w: unknown) => ({ ...cfg, stages: cfg.stages.map((s, j) => (j === i ? { ...s, rewardWeights: w } : s)) });
    expect(() => parsePipelineConfig(withWeights({ exact_match: -1 }))).toThrow(/rewardWeights.*at least 0/s);
    expect(() => parsePipelineConfig(withWeights({ exact_match: Number.NaN }))).toThrow(/rewardWeights.exact_match: .*NaN/);
    expect(() => parsePipelineConfig(withWeights('exact_match'))).toThrow(/COMPONENT=WEIGHT/);
  });
});
