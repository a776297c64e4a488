import { describe, expect, it } from 'vitest';
import { learningConfig, ROUTING_LEARNING } from '../pipeline/presets';
import { describeEta, estimateRemaining, formatDuration } from './eta';
import { RunSeries } from './runSeries';
import { sftEvent } from './testEvents';

// SFT 150 → eval 128 → GRPO 10 → eval 128
const cfg = learningConfig({
  ...ROUTING_LEARNING, tasks: [{ family: 'function-calling', level: 'route4', weight: 1 }], sftExamples: 512, sftSteps: 150,
  rlSteps: 10, tasksPerStep: 8, groupSize: 8, evalN: 128, evalBefore: false, evalEvery: 0,
});

describe('time left', () => {
  it('is unknown before two steps of a stage, then the rest of the stage at the measured speed (first step left out)', () => {
    const s = new RunSeries();
    const times = { start: new Map([[0, 0]]), end: new Map<number, number>() };
    expect(estimateRemaining(cfg, s, times, { stage: 0 }, 0)).toEqual({ seconds: null, lowerBound: true, rate: '' });
    s.add(sftEvent(0, 1, 150, 30_000)); // compiling: 30 s
    s.add(sftEvent(0, 2, 150, 30_500));
    s.add(sftEvent(0, 3, 150, 31_000));
    const e = estimateRemaining(cfg, s, times, { stage: 0 }, 31_000);
    expect(e.rate).toBe('2.0 SFT steps/s');
    // 147 SFT steps at 0.5 s; evaluations and GRPO not measured yet: a lower bound
    expect(e).toMatchObject({ seconds: 73.5, lowerBound: true });
    expect(describeEta(e)).toBe('at least 1 min 14 s left · 2.0 SFT steps/s');
  });

  it('times evaluations from finished ones', () => {
    const s = new RunSeries();
    for (let i = 1; i <= 150; i++) s.add(sftEvent(0, i, 150, i * 1000));
    const times = { start: new Map([[0, 0], [1, 150_000]]), end: new Map([[0, 150_000], [1, 214_000]]) };
    // eval of 128 episodes took 64 s: 0.5 s each; GRPO not measured: lower bound with the last evaluation counted
    const e = estimateRemaining(cfg, s, times, { stage: 2 }, 215_000);
    expect(e).toMatchObject({ seconds: 64, lowerBound: true });
  });

  it('formats durations', () => {
    expect([formatDuration(5.4), formatDuration(200), formatDuration(7300)]).toEqual(['5 s', '3 min 20 s', '2 h 01 min']);
  });
});
