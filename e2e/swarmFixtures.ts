// What the swarm specs share: a micro model (fast rollouts on a software adapter) and a GRPO-only
// run config of route4 whose length each spec picks so that joins and faults land mid-run.
import { expect } from '@playwright/test';
import type { SwarmResult } from '../src/app/swarmHooks';
import { BYTE_VOCAB_SIZE } from '../src/model/config';
import { PIPELINE_CONFIG_VERSION } from '../src/pipeline/config';

export const MICRO_MODEL = {
  vocabSize: BYTE_VOCAB_SIZE, hiddenSize: 32, intermediateSize: 64, numLayers: 1, numHeads: 2, numKvHeads: 1, headDim: 16,
  rmsNormEps: 1e-6, ropeTheta: 10000, maxPositionEmbeddings: 512, tieWordEmbeddings: true, tokenizer: 'byte',
};

/** A swarm run: `steps` GRPO steps of 2 tasks × 2 samples, staleness 1, no KL reference. */
export function swarmRunConfig(seed: number, steps: number) {
  return {
    version: PIPELINE_CONFIG_VERSION, preset: 'nano', seed, tasks: [{ family: 'function-calling', level: 'route4' }],
    context: { maxTotalTokens: 288, maxNewTokensPerTurn: 8, maxTurns: 1 },
    stages: [{ kind: 'grpo', steps, tasksPerStep: 2, groupSize: 2, lr: 1e-3, staleness: 1, samplingRounds: 1, klCoef: 0 }],
  };
}

/** A data-parallel run: `steps` SFT steps of 4 rows (2 per tab at world 2) on 16 verified route4 conversations. */
export function swarmSftConfig(seed: number, steps: number) {
  return {
    version: PIPELINE_CONFIG_VERSION, preset: 'nano', seed, tasks: [{ family: 'function-calling', level: 'route4' }],
    context: { maxTotalTokens: 288, maxNewTokensPerTurn: 8, maxTurns: 1 },
    stages: [{ kind: 'sft', data: { source: 'synthetic', examples: 16 }, steps, batchSize: 4, lr: 3e-3, warmupSteps: 0 }],
  };
}

const rel = (a: number, b: number) => Math.abs(a - b) / Math.max(Math.abs(b), 1e-12);

/**
 * Data parallel = one tab: every rank's `steps` SFT losses within 1e-5 relative of the one tab's run
 * (which trains: its last loss is below its first, so equal losses are not equal constants), the same
 * final weights SHA-256 on every rank, and rank 0's weights within 1e-4 of the one tab's.
 */
export function expectOneTabsRun(want: SwarmResult, ranks: readonly SwarmResult[], steps: number): void {
  expect(want.sftLosses).toHaveLength(steps);
  for (const got of ranks) {
    expect(got.sftLosses).toHaveLength(steps);
    for (const [i, l] of want.sftLosses.entries()) expect(rel(got.sftLosses[i], l), `step ${i + 1}: ${got.sftLosses[i]} vs ${l}`).toBeLessThanOrEqual(1e-5);
  }
  expect(want.sftLosses.at(-1)!).toBeLessThan(want.sftLosses[0]);
  for (const r of ranks) expect(r.weightsSha256).toBe(ranks[0].weightsSha256);
  expect(ranks[0].weightsSha256).toMatch(/^[0-9a-f]{64}$/);
  expect(ranks[0].weights!.length).toBe(want.weights!.length);
  expect(Math.max(...ranks[0].weights!.map((x, i) => Math.abs(x - want.weights![i])))).toBeLessThanOrEqual(1e-4);
}
