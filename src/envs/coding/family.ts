// The coding family as an EnvFamily: task generator, environment, expert and default weights.
import type { EnvFamily } from '../types';
import { CodingEnv, DEFAULT_CODING_WEIGHTS } from './env';
import { codingExpert } from './expert';
import { generateCodingTask } from './generate';
import type { CodingLevel } from './levels';
import type { CodingTask } from './types';

/** The family at one curriculum level (levels.ts): write a JavaScript function from a specification; run_tests on examples, submit for hidden tests. */
export function codingLevelFamily(level: CodingLevel): EnvFamily<CodingTask> {
  return {
    name: 'coding',
    generateTask: (seed, index, split) => generateCodingTask(seed, index, split, level),
    createEnv: (limits, weights) => new CodingEnv({ limits, weights }),
    expertPolicy: codingExpert,
    defaultWeights: DEFAULT_CODING_WEIGHTS,
  };
}

/** The full task set (every template; the family's default level). */
export const codingFamily: EnvFamily<CodingTask> = codingLevelFamily('functions');
