// Every task set by (family, level): the name the CLI (`npm run tasks`, `npm run learn`) and the
// pipeline config use. A level is one task set of a family; each has train / validation / test
// splits disjoint by construction (src/envs/splits.ts), except the unseen-tools set, which has no
// train split (it measures functions never trained on).
import { codingFamily, codingLevelFamily } from './coding/index';
import { functionCallingFamily, ROUTING_FAMILIES, unseenToolsFamily } from './functionCalling/family';
import { serviceFamily, serviceLevelFamily } from './service/index';
import { SPLITS, type Split } from './splits';
import type { EnvFamily } from './types';

export { TASK_FAMILY_NAMES, type TaskFamilyName } from './familyNames';
import type { TaskFamilyName } from './familyNames';

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
  set('function-calling', 'route4b', 'routing: one of 4 other short tools (news, translate, email, phone; none of route4\'s), single turn', ROUTING_FAMILIES.route4b as EnvFamily),
  set('service', 'retail', 'τ-bench-style retail customer service with a simulated user, multi-turn', serviceFamily as EnvFamily),
  set('service', 'status', 'curriculum 1: look up an order status (authenticate by email, get_order_status, tell it), 4 turns', serviceLevelFamily('status') as EnvFamily),
  set('service', 'write', 'curriculum 2: one write with confirmation (cancel a pending order or change its address), 6 turns', serviceLevelFamily('write') as EnvFamily),
  set('service', 'multi-step', 'curriculum 3: a return or an exchange of delivered items (read the order and the product, confirm items and payment, act), 6–7 turns', serviceLevelFamily('multi-step') as EnvFamily),
  set('coding', 'functions', 'write a JavaScript function from a specification; run_tests, then submit', codingFamily as EnvFamily),
  set('coding', 'one-liners', 'curriculum 1: one-expression functions (one operation, or two in order); test = compositions never trained on', codingLevelFamily('one-liners') as EnvFamily),
  set('coding', 'loops', 'curriculum 2: the array and maths templates (one loop each, mostly); whole templates held out', codingLevelFamily('loops') as EnvFamily),
  set('coding', 'parsing', 'curriculum 3: the parsing templates (key=value pairs, CSV, expressions, brackets, durations, versions); whole templates held out', codingLevelFamily('parsing') as EnvFamily),
];

/**
 * Each family's levels from the smallest to the full task set (the curriculum; the full set stays the
 * family's default). The smallest trains on the CPU adapter with nano-q / tiny-q; the same code runs
 * the others on a desktop GPU.
 */
export const CURRICULA: Readonly<Record<TaskFamilyName, readonly string[]>> = {
  'function-calling': ['route4', 'route8', 'route8-multi', 'bfcl'],
  service: ['status', 'write', 'multi-step', 'retail'],
  coding: ['one-liners', 'loops', 'parsing', 'functions'],
};


/** The task set of `family` at `level` (default: the family's first level); a clear error naming the choices otherwise. */
export function taskSet(family: string, level?: string): TaskSet {
  const sets = TASK_SETS.filter((s) => s.family === family);
  if (sets.length === 0) throw new Error(`unknown family ${JSON.stringify(family)}; use one of ${[...new Set(TASK_SETS.map((t) => t.family))].join(', ')}`);
  if (level === undefined) return sets[0];
  const found = sets.find((s) => s.level === level);
  if (found === undefined) throw new Error(`family ${family} has no level ${JSON.stringify(level)}; use one of ${sets.map((s) => s.level).join(', ')}`);
  return found;
}
