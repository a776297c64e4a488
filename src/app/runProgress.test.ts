import { describe, expect, it } from 'vitest';
import type { DemoEvent } from '../train/demoPipeline';
import { initialProgress, progressAfter } from './runProgress';

const sft = (step: number, totalSteps = 4): DemoEvent => ({ kind: 'sft', totalSteps, metrics: { step, loss: 5 - step / 10, lr: 1e-3, gradNorm: 1, tokensPerSec: 10, skipped: false } });

function replay(events: DemoEvent[], selfCheck: boolean) {
  const seen = [];
  let p = initialProgress();
  for (const e of events) seen.push((p = progressAfter(p, e, selfCheck)));
  return seen;
}

describe('run progress', () => {
  const run: DemoEvent[] = [
    { kind: 'stage', stage: 'data' },
    { kind: 'stage', stage: 'model' },
    { kind: 'stage', stage: 'eval', detail: 'before' },
    { kind: 'eval', label: 'before SFT', success: 0, total: 2 },
    { kind: 'stage', stage: 'sft' },
    sft(1), sft(2), sft(3), sft(4),
    { kind: 'stage', stage: 'eval', detail: 'after' },
    { kind: 'eval', label: 'after SFT', success: 1, total: 2 },
    { kind: 'sample', text: 'user: x' },
    { kind: 'done', summary: { preset: 'nano', parameters: 1, selfCheckFailures: 0, firstLoss: 5, finalLoss: 4, heldoutSuccessBefore: 0, heldoutSuccessAfter: 0.5, seconds: 12.34 } },
  ];

  it('never goes backwards and ends at 1', () => {
    for (const selfCheck of [false, true]) {
      const fr = replay(run, selfCheck).map((p) => p.fraction);
      for (let i = 1; i < fr.length; i++) expect(fr[i]).toBeGreaterThanOrEqual(fr[i - 1]);
      expect(fr.at(-1)).toBe(1);
    }
  });

  it('moves with SFT steps and labels them', () => {
    const seen = replay(run, false);
    const steps = seen.slice(5, 9);
    expect(steps.map((p) => p.label)).toEqual(['SFT step 1/4 · loss 4.9000', 'SFT step 2/4 · loss 4.8000', 'SFT step 3/4 · loss 4.7000', 'SFT step 4/4 · loss 4.6000']);
    expect(steps[1].fraction - steps[0].fraction).toBeCloseTo(steps[3].fraction - steps[2].fraction);
    expect(seen.at(-1)).toMatchObject({ done: true, label: 'done in 12.3 s' });
  });

  it('self-check events fill their band without leaving it', () => {
    let p = progressAfter(initialProgress(), { kind: 'stage', stage: 'self-check' }, true);
    for (let i = 0; i < 100; i++) p = progressAfter(p, { kind: 'check', name: `k${i}`, ok: true, relErr: 0 }, true);
    expect(p.fraction).toBeGreaterThan(0.09);
    expect(p.fraction).toBeLessThan(0.1);
    expect(p.label).toBe('self-check: 100 kernel checks');
  });
});
