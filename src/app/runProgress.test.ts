import { describe, expect, it } from 'vitest';
import type { DemoEvent, DemoSummary, GrpoProgress } from '../pipeline/demoPipeline';
import { initialProgress, progressAfter } from './runProgress';

const sft = (step: number, totalSteps = 4): DemoEvent => ({ kind: 'sft', totalSteps, metrics: { step, loss: 5 - step / 10, lr: 1e-3, gradNorm: 1, tokens: 0, tokensPerSec: 10, skipped: false } });
const grpo = (step: number, totalSteps = 3): DemoEvent => {
  const progress: GrpoProgress = {
    step, totalSteps, successRate: step / 4, reward: 0.5 + step / 10, components: { format: 1, tool_choice: step / 4 },
    groupsDropped: 0, groups: 2, rolloutTokensPerSec: 100, trainTokensPerSec: 500, skipped: false,
  };
  return { kind: 'grpo', progress };
};
const evalEvent = (label: 'before SFT' | 'after SFT' | 'after GRPO', success: number): DemoEvent => ({ kind: 'eval', label, split: 'test', success, total: 4, interval: [0, 1], reward: success / 4, components: {}, byKey: {}, baselines: {} });
const summary: DemoSummary = {
  model: 'preset nano', preset: 'nano', taskSet: 'route4', parameters: 1, selfCheckFailures: 0, firstLoss: 5, finalLoss: 4, evals: [],
  evalTasks: 4, finalReward: 0.8, stageSeconds: { selfCheck: 0, sft: 1, grpo: 1, eval: 1 }, seconds: 12.34,
};

function replay(events: DemoEvent[], selfCheck: boolean) {
  const seen = [];
  let p = initialProgress();
  for (const e of events) seen.push((p = progressAfter(p, e, selfCheck)));
  return seen;
}

describe('run progress', () => {
  const run: DemoEvent[] = [
    { kind: 'stage', stage: 'model' },
    { kind: 'stage', stage: 'eval', detail: 'before', eval: 'before SFT' },
    evalEvent('before SFT', 0),
    { kind: 'stage', stage: 'sft' },
    sft(1), sft(2), sft(3), sft(4),
    { kind: 'stage', stage: 'eval', detail: 'after SFT', eval: 'after SFT' },
    evalEvent('after SFT', 1),
    { kind: 'stage', stage: 'grpo' },
    grpo(1), grpo(2), grpo(3),
    { kind: 'stage', stage: 'eval', detail: 'after GRPO', eval: 'after GRPO' },
    evalEvent('after GRPO', 3),
    { kind: 'stage', stage: 'sample' },
    { kind: 'sample', text: 'user: x', success: true },
    { kind: 'done', summary },
  ];

  it('never goes backwards and ends at 1, with or without the optional stages', () => {
    const withoutBefore = run.filter((e) => !(e.kind === 'eval' && e.label === 'before SFT') && !(e.kind === 'stage' && e.eval === 'before SFT'));
    for (const events of [run, withoutBefore]) {
      for (const selfCheck of [false, true]) {
        const fr = replay(events, selfCheck).map((p) => p.fraction);
        for (let i = 1; i < fr.length; i++) expect(fr[i]).toBeGreaterThanOrEqual(fr[i - 1]);
        expect(fr.at(-1)).toBe(1);
      }
    }
  });

  it('moves with SFT steps and labels them', () => {
    const seen = replay(run, false);
    const steps = seen.slice(4, 8);
    expect(steps.map((p) => p.label)).toEqual(['SFT step 1/4 · loss 4.9000', 'SFT step 2/4 · loss 4.8000', 'SFT step 3/4 · loss 4.7000', 'SFT step 4/4 · loss 4.6000']);
    expect(steps[1].fraction - steps[0].fraction).toBeCloseTo(steps[3].fraction - steps[2].fraction);
    expect(seen.at(-1)).toMatchObject({ done: true, label: 'done in 12.3 s', evalsSeen: 3 });
  });

  it('moves with GRPO steps after the SFT evaluation and labels them with success and reward', () => {
    const seen = replay(run, false);
    const steps = seen.slice(11, 14);
    expect(steps.map((p) => p.label)).toEqual(['GRPO step 1/3 · success 25 % · reward 0.600', 'GRPO step 2/3 · success 50 % · reward 0.700', 'GRPO step 3/3 · success 75 % · reward 0.800']);
    expect(steps[0].fraction).toBeGreaterThan(seen[9].fraction); // past "after SFT"
    expect(steps[2].fraction - steps[1].fraction).toBeCloseTo(steps[1].fraction - steps[0].fraction);
    expect(seen[15]).toMatchObject({ label: 'after GRPO: 3/4 test tasks solved' });
    expect(seen[15].fraction).toBeLessThan(1);
  });

  it('self-check events fill their band without leaving it', () => {
    let p = progressAfter(initialProgress(), { kind: 'stage', stage: 'self-check' }, true);
    for (let i = 0; i < 100; i++) p = progressAfter(p, { kind: 'check', name: `k${i}`, ok: true, relErr: 0 }, true);
    expect(p.fraction).toBeGreaterThan(0.09);
    expect(p.fraction).toBeLessThan(0.1);
    expect(p.label).toBe('self-check: 100 kernel checks');
  });
});
