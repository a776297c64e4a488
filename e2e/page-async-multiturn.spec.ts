// Async GRPO on multi-turn episodes in the page (issue 14, item 2): a service `status` pipeline on
// nano-q (trimmed Qwen3 vocabulary) whose GRPO stage has staleness 1 runs its trainer and rollout
// actor in their own Web Workers; the rollouts the page shows are conversations of several assistant
// turns with tool results and user replies between them, and no step trains on a batch more than one
// version old. A few SFT steps come first only so that the untrained model ends its turns with
// <|im_end|> (a random model almost never samples it, and a turn cut at maxNewTokensPerTurn ends the
// episode). The same run in Node, with the mask and behaviour log-probs checked token by token:
// src/pipeline/asyncMultiTurn.test.ts.
import { expect, test } from '@playwright/test';
import type { PipelineConfig } from '../src/pipeline/config';
import type { EpisodeView } from '../src/workers/runEvents';
import { openPage, runToEnd } from './pageKit';

/** nano-q on service/status: SFT 4 steps × 1 conversation, then async GRPO (k = 1) 2 steps × 2 tasks × G 2. */
const MULTI_TURN_ASYNC: PipelineConfig = {
  version: 1, preset: 'nano-q', seed: 1, tasks: [{ family: 'service', level: 'status', weight: 1 }],
  context: { maxTotalTokens: 512, maxNewTokensPerTurn: 32, maxTurns: 4 },
  stages: [
    { kind: 'sft', data: { source: 'synthetic', examples: 8, drills: 0 }, steps: 4, batchSize: 1, lr: 3e-2, warmupSteps: 0, minLrRatio: 1 },
    {
      kind: 'grpo', steps: 2, tasksPerStep: 2, groupSize: 2, lr: 1e-3, warmupSteps: 0, minLrRatio: 1, klCoef: 0, credit: 'component',
      temperature: 1, samplingRounds: 1, evalEvery: 0, staleness: 1,
    },
  ],
};

test('async GRPO in Web Workers (staleness 1) on multi-turn service episodes: turns with tool and user replies between them, staleness ≤ 1', async ({ page }, info) => {
  await openPage(page, info);
  const events = await runToEnd(page, MULTI_TURN_ASYNC, { samples: 0 });
  const steps = events.flatMap((e) => (e.kind === 'grpo' ? [e] : []));
  expect(steps.map((e) => e.step)).toEqual([1, 2]);
  for (const e of steps) {
    expect(e.metrics['async/staleness_bound']).toBe(1); // trained through the async coordinator
    expect(e.metrics['staleness/max']).toBeLessThanOrEqual(1);
  }
  expect(Math.max(...steps.map((e) => e.metrics['turns/mean']))).toBeGreaterThan(1);

  const rollouts = events.flatMap((e) => (e.kind === 'episodes' ? e.episodes.filter((x) => x.source === 'rollout') : []));
  expect(rollouts).toHaveLength(2 * 2 * 2);
  const multi = rollouts.filter((x) => x.turns.length >= 2);
  expect(multi.length).toBeGreaterThanOrEqual(rollouts.length / 2);
  // between the first and the last assistant turn: the env's tool results and user replies
  const between = (x: EpisodeView) => {
    const roles = x.messages.map((m) => m.role);
    return roles.slice(roles.indexOf('assistant'), roles.lastIndexOf('assistant')).filter((r) => r !== 'assistant');
  };
  const seen = new Set(multi.flatMap(between));
  expect(seen).toEqual(new Set(['tool', 'user']));
  for (const x of multi) {
    expect(x.messages.filter((m) => m.role === 'assistant')).toHaveLength(x.turns.length);
    for (const t of x.turns) expect(t.tokens).toBeGreaterThan(0);
  }
  console.log(`${multi.length}/${rollouts.length} rollouts multi-turn; between turns: ${[...seen].join(', ')}; turns/mean per step ${steps.map((e) => e.metrics['turns/mean']).join(', ')}; staleness/max ${steps.map((e) => e.metrics['staleness/max']).join(', ')}; skipped ${steps.map((e) => e.skipped).join(', ')}`);
});
