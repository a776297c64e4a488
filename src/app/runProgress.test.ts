import { describe, expect, it } from 'vitest';
import { learningConfig, ROUTING_LEARNING } from '../pipeline/presets';
import { initialProgress, progressAfter, stageBands } from './runProgress';
import { evalSummary, episode, grpoEvent, sftEvent } from './testEvents';

// SFT 150 → eval 128 → GRPO 10 → eval 128 (the events below are written for it)
const cfg = learningConfig({
  ...ROUTING_LEARNING, tasks: [{ family: 'function-calling', level: 'route4', weight: 1 }], sftExamples: 512, sftSteps: 150,
  rlSteps: 10, tasksPerStep: 8, groupSize: 8, evalN: 128, evalBefore: false, evalEvery: 0,
});

describe('run progress', () => {
  it('gives each stage a band in order, leaving the self-check and the final samples their share', () => {
    const b = stageBands(cfg, true);
    expect(b[0][0]).toBeCloseTo(0.05);
    for (let i = 1; i < b.length; i++) expect(b[i][0]).toBeCloseTo(b[i - 1][1]);
    expect(b.at(-1)![1]).toBeCloseTo(0.05 + 0.95 * 0.98);
  });

  it('moves with steps and evaluation episodes, labels what happens, and never goes back', () => {
    let p = initialProgress(0);
    const seen: number[] = [];
    const step = (e: Parameters<typeof progressAfter>[1]) => {
      p = progressAfter(p, e, cfg, false);
      seen.push(p.fraction);
    };
    step({ kind: 'phase', stage: 0, phase: 'sft', detail: 'SFT: 150 steps', at: 1 });
    expect(p.label).toBe('stage 1/4 · SFT: 150 steps');
    step(sftEvent(0, 75, 150, 2));
    expect(p.label).toBe('stage 1/4 · SFT step 75/150 · loss -2.5000');
    step({ kind: 'phase', stage: 1, phase: 'eval', detail: 'after SFT', at: 3 });
    step({ kind: 'episodes', episodes: [episode({ source: 'eval', step: 0, stage: 1 })], dropped: 63 });
    expect(p.label).toBe('stage 2/4 · evaluation "after SFT": 64/128 episodes');
    step({ kind: 'eval', stage: 1, summary: evalSummary('after SFT', 'test', 1, 2) });
    step(sftEvent(0, 1, 150, 4)); // a late event of an earlier stage
    step(grpoEvent(2, 5, 10, 5));
    step({ kind: 'done', result: { model: 'm', parameters: 1, evals: [], stageSeconds: [], seconds: 12.3, selfCheckFailures: 0 } });
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(p).toMatchObject({ fraction: 1, done: true, label: 'done in 12.3 s' });
  });
});
