// The pipeline's --credit trajectory|turn|component reaches the trainer as the GRPO config the
// credit module reads (grpo/credit.ts), and multi-turn groups are laid out with their opening shared.
import { describe, expect, it } from 'vitest';
import { creditSteps, validateGrpoConfig } from '../train/rl/grpo';
import { checkGroupSizes } from '../train/rl/rlLoop';
import type { CreditScheme, GrpoStageConfig } from './config';
import { type LearningOptions, learningConfig, ROUTING_LEARNING } from './presets';
import { grpoLoopConfig } from './loopSettings';

const STATUS: LearningOptions = { ...ROUTING_LEARNING, preset: 'nano-q', tasks: [{ family: 'service', level: 'status', weight: 1 }] };

function loop(credit: CreditScheme, o: LearningOptions = STATUS) {
  const cfg = learningConfig({ ...o, credit });
  const i = cfg.stages.findIndex((s) => s.kind === 'grpo');
  return grpoLoopConfig(cfg, cfg.stages[i] as GrpoStageConfig, i);
}

// Two members with the same total, earned in different turns (auth in turn 0 vs turn 1).
const W = { auth: 0.5, outcome: 0.5 };
const member = (authTurn: number) => ({
  reward: { components: { auth: 1, outcome: 0 }, weights: W, total: 0.5 }, responseTokens: 20,
  turnComponents: [0, 1].map((t) => ({ auth: t >= authTurn ? 1 : 0, outcome: 0 })), turnStarts: [5, 15],
});

describe('grpoLoopConfig credit schemes', () => {
  it.each([
    ['trajectory', false, false],
    ['turn', true, false],
    ['component', true, true],
  ] as const)('%s → turnCredit %s, componentCredit %s; a valid config with no additive per-turn bonus', (credit, turn, component) => {
    const g = loop(credit).trainer.grpo;
    expect([g.turnCredit, g.componentCredit, g.turnCreditCoef]).toEqual([turn, component, 0]);
    expect(() => validateGrpoConfig(g)).not.toThrow();
  });

  it('only turn-based schemes tell apart equal totals earned in different turns', () => {
    const group = [member(0), member(1)];
    const steps = (credit: CreditScheme) => creditSteps(group, 2, loop(credit).trainer.grpo);
    expect(steps('trajectory')).toEqual([[], []]);
    for (const c of ['turn', 'component'] as const) expect(steps(c).flat().length, c).toBeGreaterThan(0);
  });

  it('multi-turn rows share the group opening and pack; single-turn routing keeps one [prompt | G samples] row', () => {
    const multi = loop('turn').trainer;
    expect([multi.sharePrefix, multi.pack, multi.seqLen]).toEqual([true, true, learningConfig({ ...STATUS, credit: 'turn' }).context.maxTotalTokens]);
    const single = loop('turn', ROUTING_LEARNING).trainer;
    expect([single.sharePrefix, single.pack]).toEqual([true, false]);
  });

  it('the stage\'s temperature reaches both the rollouts and the trainer (which scores at it); a loop that samples at another temperature than it scores is refused', () => {
    const cfg = learningConfig({ ...STATUS, temperature: 1.5 });
    const i = cfg.stages.findIndex((s) => s.kind === 'grpo');
    const l = grpoLoopConfig(cfg, cfg.stages[i] as GrpoStageConfig, i);
    expect([l.rollout.temperature, l.trainer.temperature]).toEqual([1.5, 1.5]);
    expect(() => checkGroupSizes(l)).not.toThrow();
    expect(() => checkGroupSizes({ ...l, trainer: { ...l.trainer, temperature: undefined } })).toThrow(/rollouts sample at temperature 1.5 but the trainer scores at 1/);
    // greedy rollouts record their log-probs at temperature 1 (model/sampling.ts)
    expect(() => checkGroupSizes({ ...l, rollout: { ...l.rollout, temperature: 0 }, trainer: { ...l.trainer, temperature: 1 } })).not.toThrow();
  });

  it('the stage\'s entropy bonus and advantage scaling reach the trainer\'s GRPO config; absent, they are the old defaults (no bonus, std scaling)', () => {
    const at = (o: Partial<LearningOptions>) => {
      const cfg = learningConfig({ ...ROUTING_LEARNING, ...o });
      const i = cfg.stages.findIndex((s) => s.kind === 'grpo');
      return { stage: cfg.stages[i] as GrpoStageConfig, grpo: grpoLoopConfig(cfg, cfg.stages[i] as GrpoStageConfig, i).trainer.grpo };
    };
    const plain = at({});
    expect([plain.grpo.entropyCoef, plain.grpo.scaleByStd]).toEqual([0, true]);
    expect('entropyCoef' in plain.stage || 'advantage' in plain.stage).toBe(false); // configs written before stay byte-identical
    const set = at({ entropyCoef: 0.005, advantage: 'mean' });
    expect([set.grpo.entropyCoef, set.grpo.scaleByStd]).toEqual([0.005, false]);
    expect([set.stage.entropyCoef, set.stage.advantage]).toEqual([0.005, 'mean']);
    expect(at({ advantage: 'std' }).grpo.scaleByStd).toBe(true);
    expect(() => validateGrpoConfig(set.grpo)).not.toThrow();
  });
});
