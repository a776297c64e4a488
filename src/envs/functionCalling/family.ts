// The function-calling families as EnvFamily objects: the BFCL-style mix over the API catalogue
// (seen tools, and the unseen-tools evaluation set), and the small "route" sets for learning runs.
// All share the environment, checker and expert.
import type { EnvFamily } from '../types';
import { DEFAULT_WEIGHTS, FunctionCallingEnv } from './environment';
import { functionCallingExpert } from './expertPolicy';
import { generateFunctionCallingTask } from './generateTask';
import { generateRoutingTask, ROUTING_LEVELS, type RoutingLevel } from './routingTask';
import type { FunctionCallingTask } from './types';

/** BFCL-style tasks: simple, multiple, parallel, parallel_multiple, irrelevance (see CATEGORY_MIX). */
export const functionCallingFamily: EnvFamily<FunctionCallingTask> = {
  name: 'function-calling',
  generateTask: (seed, index, split) => generateFunctionCallingTask(seed, index, split),
  createEnv: (limits, weights) => new FunctionCallingEnv(limits, weights),
  expertPolicy: functionCallingExpert,
  defaultWeights: DEFAULT_WEIGHTS,
};

/**
 * The BFCL-style mix over functions no train or validation task offers (catalogue/toolSplits.ts):
 * 'validation' asks for 4 held-out functions (choose settings), 'test' for 4 others (report);
 * 'train' throws — the unseen-tools set is never trained on.
 */
export const unseenToolsFamily: EnvFamily<FunctionCallingTask> = {
  name: 'function-calling',
  generateTask: (seed, index, split) => generateFunctionCallingTask(seed, index, split, { tools: 'unseen' }),
  createEnv: (limits, weights) => new FunctionCallingEnv(limits, weights),
  expertPolicy: functionCallingExpert,
  defaultWeights: DEFAULT_WEIGHTS,
};

function routingFamilyOf(level: RoutingLevel): EnvFamily<FunctionCallingTask> {
  return {
    name: 'function-calling',
    generateTask: (seed, index, split) => generateRoutingTask(seed, index, split, level),
    createEnv: (limits, weights) => new FunctionCallingEnv(limits, weights),
    expertPolicy: functionCallingExpert,
    defaultWeights: DEFAULT_WEIGHTS,
  };
}

/** The routing sets per level (routingTask.ts): route4, route8, route8-multi; single-turn episodes. */
export const ROUTING_FAMILIES: Readonly<Record<RoutingLevel, EnvFamily<FunctionCallingTask>>> = Object.fromEntries(
  ROUTING_LEVELS.map((level) => [level, routingFamilyOf(level)]),
) as Record<RoutingLevel, EnvFamily<FunctionCallingTask>>;

/** The route4 set: pick one of four short tools from a short request. */
export const routingFamily: EnvFamily<FunctionCallingTask> = ROUTING_FAMILIES.route4;
