// GRPO train tasks with random argument values (randomValueTasks.ts): only train tasks of the
// function-calling family change, deterministically per (seed, index), the environment scores the
// fresh value (the old one no longer succeeds), and the setting reaches every place a GRPO stage's
// tasks are generated (sync loop config, async/swarm rollout spec, the swarm's job task ids).
import { describe, expect, it } from 'vitest';
import { ROUTING_FAMILIES } from '../envs/functionCalling/family';
import { ROUTING_VALUE_POOLS } from '../envs/functionCalling/routingPools';
import type { FunctionCallingTask } from '../envs/functionCalling/types';
import { mixFamily } from '../envs/taskMix';
import { runEpisode } from '../eval/rollout';
import { PRESETS } from '../model/config';
import { parsePipelineConfig } from '../pipeline/config';
import { grpoLoopConfig } from '../pipeline/loopSettings';
import { jobTaskIds, swarmRolloutSpec } from '../shard/swarmSpec';
import { rolloutFamily } from '../train/rl/async/actors';
import { withRandomValueTasks } from './randomValueTasks';

const POOL = new Set(Object.values(ROUTING_VALUE_POOLS).flat().map((v) => v.toLowerCase()));
const values = (t: FunctionCallingTask) => t.groundTruth.flatMap((c) => Object.values(c).flatMap((a) => Object.values(a).flat())) as string[];
const route4 = ROUTING_FAMILIES.route4;

describe('GRPO train tasks with random argument values', () => {
  it('share 1: every train task gets fresh values, never a pool value; validation and test are untouched', () => {
    const fresh = withRandomValueTasks(route4, 1);
    for (let i = 0; i < 200; i++) {
      const [before, after] = [route4.generateTask(7, i, 'train'), fresh.generateTask(7, i, 'train')];
      expect(after.id).toBe(`${before.id}-random-values`);
      for (const v of values(after)) expect(POOL.has(v.toLowerCase()), v).toBe(false);
      expect(values(after)).toHaveLength(values(before).length);
      expect(after.tools).toEqual(before.tools);
      for (const split of ['validation', 'test'] as const) expect(fresh.generateTask(7, i, split)).toEqual(route4.generateTask(7, i, split));
    }
  });

  it('is deterministic per (seed, index), a share picks about that share, and 0 / absent is the family itself', () => {
    const a = withRandomValueTasks(route4, 0.5);
    const b = withRandomValueTasks(route4, 0.5);
    let changed = 0;
    for (let i = 0; i < 400; i++) {
      const t = a.generateTask(3, i, 'train');
      expect(b.generateTask(3, i, 'train')).toEqual(t);
      if (t.id.endsWith('-random-values')) changed++;
    }
    expect(changed).toBeGreaterThan(150);
    expect(changed).toBeLessThan(250);
    expect(withRandomValueTasks(route4, 0)).toBe(route4);
    expect(withRandomValueTasks(route4, undefined)).toBe(route4);
    for (const bad of [-0.1, 1.5, Number.NaN]) expect(() => withRandomValueTasks(route4, bad)).toThrow(/share must be in \(0, 1\]/);
  });

  it('the environment scores the fresh value: the right call succeeds, the call with the old train value does not', async () => {
    const fresh = withRandomValueTasks(route4, 1);
    for (let i = 0; i < 20; i++) {
      const [before, after] = [route4.generateTask(2, i, 'train'), fresh.generateTask(2, i, 'train')];
      // the expert of the fresh task, and the expert of the original task (the train value, as memorised)
      const right = await runEpisode(fresh, after, fresh.expertPolicy(after, 1));
      const memorised = await runEpisode(fresh, after, route4.expertPolicy(before, 1));
      expect(right.success, after.id).toBe(true);
      expect(memorised.success, after.id).toBe(false);
      expect(memorised.reward.components.exact_match).toBe(0);
    }
  });

  it('a GRPO stage\'s randomValues reaches the loop config, the rollout spec and the swarm\'s job task ids', () => {
    const cfg = parsePipelineConfig({
      version: 1, preset: 'nano', seed: 4, tasks: [{ family: 'function-calling', level: 'route4' }],
      context: { maxTotalTokens: 256, maxNewTokensPerTurn: 48, maxTurns: 1 },
      stages: [{ kind: 'grpo', steps: 2, tasksPerStep: 2, groupSize: 2, lr: 1e-3, randomValues: 1 }],
    });
    const loop = grpoLoopConfig(cfg, cfg.stages[0] as Extract<(typeof cfg.stages)[0], { kind: 'grpo' }>, 0);
    expect(loop.randomValues).toBe(1);
    const spec = swarmRolloutSpec(cfg, 0, PRESETS.nano);
    expect(spec.randomValues).toBe(1);
    const ids = jobTaskIds(rolloutFamily(spec), spec.taskSeed, 0, 4);
    expect(ids.every((id) => id.endsWith('-random-values'))).toBe(true);
    // without it: the plain mix
    const plain = parsePipelineConfig({ ...cfg, stages: [{ ...cfg.stages[0], randomValues: undefined }] });
    expect(grpoLoopConfig(plain, plain.stages[0] as Extract<(typeof cfg.stages)[0], { kind: 'grpo' }>, 0).randomValues).toBeUndefined();
    expect(jobTaskIds(rolloutFamily(swarmRolloutSpec(plain, 0, PRESETS.nano)), spec.taskSeed, 0, 4)).toEqual(jobTaskIds(mixFamily(cfg.tasks), spec.taskSeed, 0, 4));
    expect(() => parsePipelineConfig({ ...cfg, stages: [{ ...cfg.stages[0], randomValues: 2 }] })).toThrow(/randomValues.*at most 1/s);
  });
});
