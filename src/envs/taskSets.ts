// Task-set names (the pipeline config's) → environment families, and a task MIX as one family: its
// generateTask draws each task's set from the mix weights (a deterministic function of seed and
// index), and its environment dispatches each episode to the env of the task's own family. The
// rollout, SFT-data and evaluation code therefore treat a mix exactly like a single family.
import { mixSeeds } from '../util/seeds';
import { codingFamily } from './coding/index';
import { functionCallingFamily, ROUTING_FAMILIES } from './functionCalling/family';
import { serviceFamily } from './service/index';
import type { Split } from './splits';
import type { EnvFamily, Environment, EpisodeLimits, StepResult, TaskBase } from './types';

export { TASK_SETS, type TaskMixEntry, type TaskSetName } from './taskSetNames';
import type { TaskMixEntry, TaskSetName } from './taskSetNames';

/** The environment family behind a task set (levels: where the set has them). */
export function taskSetFamily(entry: Pick<TaskMixEntry, 'set' | 'level'>): EnvFamily {
  switch (entry.set) {
    case 'route4':
      return ROUTING_FAMILIES.route4 as EnvFamily;
    case 'route8':
      return ROUTING_FAMILIES.route8 as EnvFamily;
    case 'bfcl':
      return functionCallingFamily as EnvFamily;
    case 'service':
      return serviceFamily as EnvFamily;
    case 'coding':
      return codingFamily as EnvFamily;
  }
}

/** A task of a mix remembers which entry of the mix it came from. */
type MixTask = TaskBase & { taskSet?: TaskSetName };

/** The mix entry of task `index`: weighted by the entries' weights, fixed by (seed, index, split). */
export function mixEntryIndex(mix: readonly TaskMixEntry[], seed: number, index: number, split: Split): number {
  if (mix.length === 1) return 0;
  const total = mix.reduce((a, e) => a + e.weight, 0);
  let u = (mixSeeds(seed, index, split.length, 0x6d1c) / 2 ** 32) * total;
  for (let i = 0; i < mix.length; i++) {
    u -= mix[i].weight;
    if (u < 0 && mix[i].weight > 0) return i;
  }
  return mix.findLastIndex((e) => e.weight > 0);
}

/**
 * One family over a task mix. A single-entry mix is that entry's family unchanged. Several entries:
 * task i is task i of the entry chosen for it (so each family's stream and its split pools stay the
 * family's own), environments dispatch on the task's family, rewards keep each family's weights.
 */
export function mixFamily(mix: readonly TaskMixEntry[]): EnvFamily {
  const families = mix.map((e) => taskSetFamily(e));
  if (families.length === 1) return families[0];
  const byName = new Map<string, EnvFamily>();
  for (const f of families) byName.set(f.name, f);
  const familyOf = (task: MixTask): EnvFamily => {
    const i = mix.findIndex((e) => e.set === task.taskSet);
    return i >= 0 ? families[i] : byName.get(task.family)!;
  };
  return {
    name: families[0].name, // not used to pick envs: mixEnv dispatches per task
    generateTask(seed, index, split) {
      const i = mixEntryIndex(mix, seed, index, split);
      return { ...families[i].generateTask(seed, index, split), taskSet: mix[i].set } as MixTask;
    },
    createEnv: (limits, weights) => mixEnv(familyOf, limits, weights),
    expertPolicy: (task, seed) => familyOf(task).expertPolicy(task, seed),
    defaultWeights: {}, // each family's env applies its own weights
  };
}

/** An environment that becomes the env of each task's family at reset. */
function mixEnv(familyOf: (task: MixTask) => EnvFamily, limits?: Partial<EpisodeLimits>, weights?: Partial<Record<string, number>>): Environment {
  let env: Environment | null = null;
  return {
    family: 'function-calling',
    reset(task: TaskBase) {
      env = familyOf(task).createEnv(limits, weights);
      return env.reset(task);
    },
    step(text: string): Promise<StepResult> {
      if (!env) throw new Error('mix environment: step() before reset()');
      return env.step(text);
    },
  };
}
