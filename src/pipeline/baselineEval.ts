// Cheap baselines scored on exactly the tasks an eval stage plays (same split, n and seeds), so a
// model's rate always sits beside what a rule reaches without learning anything: do-nothing (says
// "ok"), a seeded random agent (random tool, random arguments), and the rules of src/eval's
// baseline module where the family has them.
import type { Split } from '../envs/splits';
import { entryFamily, type TaskMixEntry, taskSetName } from '../envs/taskMix';
import type { Policy } from '../envs/types';
import { randomPolicy } from '../eval/baselinePolicies';
import { runEpisode } from '../eval/rollout';
import { mixSeeds } from '../util/seeds';
import type { RolloutConfig } from '../train/rl/rollout';
import { breakdownKey, type EpisodeRecord, evalTasks } from './evaluation';

/** The baselines every evaluation scores, by name. */
export function baselinePolicies(seed: number): Record<string, () => Policy> {
  return {
    'do-nothing': () => async () => 'ok',
    random: () => randomPolicy(mixSeeds(seed, 0xba5e)),
  };
}

/** Every baseline on the tasks evaluateSplit plays for (mix, split, n, seeds); episodes end on the rollout's turn limit. */
export async function evaluateBaselines(mix: readonly TaskMixEntry[], split: Split, n: number, seeds: readonly number[], rollout: RolloutConfig): Promise<Record<string, EpisodeRecord[]>> {
  const out: Record<string, EpisodeRecord[]> = {};
  for (const [name, make] of Object.entries(baselinePolicies(seeds[0]))) {
    const records: EpisodeRecord[] = [];
    for (const entry of mix) {
      const family = entryFamily(entry);
      const set = taskSetName(entry);
      for (const task of evalTasks(family, split, n, seeds)) {
        const e = await runEpisode(family, task, make(), { limits: { maxTurns: rollout.maxTurns } });
        records.push({ taskSet: set, taskId: task.id, key: breakdownKey(task), success: e.success, reward: e.reward.total, components: e.reward.components, truncated: e.end !== 'done', turns: e.turns, tokens: 0 });
      }
    }
    out[name] = records;
  }
  return out;
}
