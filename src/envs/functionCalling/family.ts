// The function-calling families as EnvFamily objects: the BFCL-style mix over the API catalogue,
// and the tiny "route" set for learning tests. Both share the environment, checker and expert.
import type { EnvFamily } from '../types';
import { DEFAULT_WEIGHTS, FunctionCallingEnv } from './environment';
import { functionCallingExpert } from './expertPolicy';
import { generateFunctionCallingTask } from './generateTask';
import { generateRoutingTask } from './routingTask';
import type { FunctionCallingTask } from './types';

/** BFCL-style tasks: simple, multiple, parallel, parallel_multiple, irrelevance (see CATEGORY_MIX). */
export const functionCallingFamily: EnvFamily<FunctionCallingTask> = {
  name: 'function-calling',
  generateTask: (seed, index, split) => generateFunctionCallingTask(seed, index, split),
  createEnv: (limits, weights) => new FunctionCallingEnv(limits, weights),
  expertPolicy: functionCallingExpert,
  defaultWeights: DEFAULT_WEIGHTS,
};

/** The routing set: pick one of four short tools from a short request; single-turn episodes. */
export const routingFamily: EnvFamily<FunctionCallingTask> = {
  name: 'function-calling',
  generateTask: generateRoutingTask,
  createEnv: (limits, weights) => new FunctionCallingEnv(limits, weights),
  expertPolicy: functionCallingExpert,
  defaultWeights: DEFAULT_WEIGHTS,
};
