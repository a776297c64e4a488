// A task family whose TRAIN tasks carry fresh argument values: a share of its function-calling train
// tasks go through withRandomValues (random letters shaped like each value the request spells out,
// in the request and in the expected calls), so the environment scores the call against the new
// value. Why, for GRPO: the train split draws its values from a closed pool that SFT has already
// shown the model, so a right call on a train task can come from memory; with values it has never
// seen, a rollout succeeds only by copying from the request — the skill the test split's unseen
// values ask for — and only that is reinforced. Validation and test tasks are never touched.
// Deterministic per (seed, index): the same task whoever generates it (sync loop, refills, rollout
// workers, swarm peers, a resumed run), so a job's task ids still match across members.
// Measured (README "Larger groups, and GRPO on tasks whose values the model has never seen"): on the
// copy-chain route4 model it raised success on the train tasks GRPO played (13 → 18 %) but not on
// validation (12.5 % at share 1, 13.3 % at 0.5, against 13.3 % without): the gap there is routing of
// unseen phrasings, not memorised values. Off by default.
import type { FunctionCallingTask } from '../envs/functionCalling/types';
import type { EnvFamily, TaskBase } from '../envs/types';
import { Rng } from '../util/rng';
import { mixSeeds } from '../util/seeds';
import { withRandomValues } from './randomValues';

/** `family` with a `share` (0…1) of its function-calling train tasks given random argument values; share 0 → `family` itself. */
export function withRandomValueTasks<T extends TaskBase>(family: EnvFamily<T>, share: number | undefined): EnvFamily<T> {
  if (share === undefined || share === 0) return family;
  if (!(share > 0 && share <= 1)) throw new Error(`random argument values: the share must be in (0, 1], got ${share}`);
  return {
    name: family.name,
    defaultWeights: family.defaultWeights,
    generateTask(seed, index, split) {
      const task = family.generateTask(seed, index, split);
      if (split !== 'train' || task.family !== 'function-calling') return task;
      const rng = new Rng(mixSeeds(seed, 0x7a5c, index));
      if (rng.next() >= share) return task;
      return withRandomValues(task as unknown as FunctionCallingTask, rng) as unknown as T;
    },
    createEnv: (limits, weights) => family.createEnv(limits, weights),
    expertPolicy: (task, seed) => family.expertPolicy(task, seed),
  };
}
