// The coding family as an EnvFamily: task generator, environment, expert and default weights.
import type { EnvFamily } from '../types';
import { CodingEnv, DEFAULT_CODING_WEIGHTS } from './env';
import { codingExpert } from './expert';
import { generateCodingTask } from './generate';
import type { CodingTask } from './types';

/** Write a JavaScript function from a specification; run_tests on examples, submit for hidden tests. */
export const codingFamily: EnvFamily<CodingTask> = {
  name: 'coding',
  generateTask: generateCodingTask,
  createEnv: (limits, weights) => new CodingEnv({ limits, weights }),
  expertPolicy: codingExpert,
  defaultWeights: DEFAULT_CODING_WEIGHTS,
};
