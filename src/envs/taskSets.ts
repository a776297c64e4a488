// Every task set by (family, level): the name the CLI (`npm run tasks`, `npm run learn`) and the
// pipeline config use. A level is one task set of a family; each has train / validation / test
// splits disjoint by construction (src/envs/splits.ts), except the unseen-tools set, which has no
// train split (it measures functions never trained on).
import { codingFamily } from './coding/index';
import { functionCallingFamily, ROUTING_FAMILIES, unseenToolsFamily } from './functionCalling/family';
import { serviceFamily } from './service/index';
import { SPLITS, type Split } from './splits';
import type { EnvFamily, TaskBase } from './types';

export type TaskFamilyName = TaskBase['family'];

export interface TaskSet {
  family: TaskFamilyName;
  level: string;
  /** One line for help texts. */
  description: string;
  /** The splits this set has. */
  splits: readonly Split[];
  envFamily: EnvFamily;
}

const set = (family: TaskFamilyName, level: string, description: string, envFamily: EnvFamily, splits: readonly Split[] = SPLITS): TaskSet => ({ family, level, description, splits, envFamily });

/** All task sets; the first level of each family is its default. */
export const TASK_SETS: readonly TaskSet[] = [
  set('function-calling', 'bfcl', 'BFCL-style mix (simple, multiple, parallel, parallel_multiple, irrelevance) over the 20 train tools', functionCallingFamily as EnvFamily),
  set('function-calling', 'bfcl-unseen-tools', 'the BFCL-style mix over held-out functions never offered in training (validation: 4, test: 4 others)', unseenToolsFamily as EnvFamily, ['validation', 'test']),
  set('function-calling', 'route4', 'routing: one of 4 short tools (weather, time, price, define), single turn', ROUTING_FAMILIES.route4 as EnvFamily),
  set('function-calling', 'route8', 'routing: one of 8 short tools in 4 value-type pairs, single turn', ROUTING_FAMILIES.route8 as EnvFamily),
  set('function-calling', 'route8-multi', 'route8 where 35 % of requests need two calls', ROUTING_FAMILIES['route8-multi'] as EnvFamily),
  set('service', 'retail', 'τ-bench-style retail customer service with a simulated user, multi-turn', serviceFamily as EnvFamily),
  set('coding', 'functions', 'write a JavaScript function from a specification; run_tests, then submit', codingFamily as EnvFamily),
];

export const TASK_FAMILY_NAMES: readonly TaskFamilyName[] = ['function-calling', 'service', 'coding'];

/** The task set of `family` at `level` (default: the family's first level); a clear error naming the choices otherwise. */
export function taskSet(family: string, level?: string): TaskSet {
  const sets = TASK_SETS.filter((s) => s.family === family);
  if (sets.length === 0) throw new Error(`unknown family ${JSON.stringify(family)}; use one of ${TASK_FAMILY_NAMES.join(', ')}`);
  if (level === undefined) return sets[0];
  const found = sets.find((s) => s.level === level);
  if (found === undefined) throw new Error(`family ${family} has no level ${JSON.stringify(level)}; use one of ${sets.map((s) => s.level).join(', ')}`);
  return found;
}
