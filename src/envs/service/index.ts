// The customer-service family (τ-bench-style retail): a seeded database of users, orders and
// products, 11 tools, a written policy, and a scripted simulated user. Rewards and their default
// weights are documented in reward.ts (outcome 0.5, tool_calls 0.2, authentication 0.1,
// policy 0.1, info 0.1; success = outcome).

import type { EnvFamily, EpisodeLimits } from '../types';
import { SERVICE_DEFAULT_LIMITS, ServiceEnv } from './env';
import { serviceExpertPolicy } from './expert';
import { SERVICE_DEFAULT_WEIGHTS } from './reward';
import { generateServiceTask } from './tasks';
import type { ServiceTask } from './types';
import type { ServiceLevel } from './levels';
import { defined } from '../../util/defined';

/** The family at one curriculum level (levels.ts): its tasks carry the level, the env and expert follow it. */
export function serviceLevelFamily(level: ServiceLevel): EnvFamily<ServiceTask> {
  return {
    name: 'service',
    generateTask: (seed, index, split) => generateServiceTask(seed, index, split, level),
    createEnv(limits?: Partial<EpisodeLimits>, weights?: Partial<Record<string, number>>) {
      const merged = { ...SERVICE_DEFAULT_LIMITS, ...defined(limits) };
      return new ServiceEnv(merged, { ...SERVICE_DEFAULT_WEIGHTS, ...(defined(weights) as Record<string, number>) });
    },
    expertPolicy: serviceExpertPolicy,
    defaultWeights: SERVICE_DEFAULT_WEIGHTS,
  };
}

/** The full retail task set (the family's default level). */
export const serviceFamily: EnvFamily<ServiceTask> = serviceLevelFamily('retail');

export type { ServiceTask, ServiceCategory, ServiceGoal, Database as ServiceDatabase } from './types';
export { SERVICE_CATEGORIES } from './types';
export { SERVICE_DEFAULT_LIMITS, ServiceEnv } from './env';
export { SERVICE_DEFAULT_WEIGHTS } from './reward';
export { MULTI_STEP_POLICY, SERVICE_POLICY, STATUS_POLICY, WRITE_POLICY } from './policy';
export { SERVICE_LEVELS, SERVICE_LEVEL_SPECS, type ServiceLevel } from './levels';
export { SERVICE_TOOL_SPECS } from './toolSpecs';
