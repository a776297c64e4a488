import { describe, expect, it } from 'vitest';
import { DEFAULT_DEMO, demoConfig } from '../pipeline/demoPipeline';
import { trainingShape } from '../pipeline/loopSettings';
import { EXAMPLE_PIPELINES } from '../pipeline/presets';
import { validatePipelineConfig } from '../pipeline/config';
import { AUTOSTART_MAX_SIZE, autostartHold, checkDraft, DEFAULT_PIPELINE, describeStages, newStage, parseNumber, runSizeVsDefault } from './pipelineDraft';
import { trainingShapeOf } from './trainingShape';
import { formatRewardWeights, formatStageLora, parseRewardWeights, parseStageLora } from './ui/stageFields';

describe('the page pipeline draft', () => {
  it("defaults to the demo's pipeline (the first example), and every example is valid", () => {
    expect(DEFAULT_PIPELINE).toEqual(demoConfig(DEFAULT_DEMO));
    expect(EXAMPLE_PIPELINES.map((x) => x.id)).toEqual(['routing', 'bfcl', 'service', 'coding', 'all', 'merge']);
    for (const x of EXAMPLE_PIPELINES) expect(checkDraft(x.config)).toEqual({ config: x.config, errors: new Map() });
  });

  it("computes the runner's training shape on the main thread", () => {
    for (const x of EXAMPLE_PIPELINES) {
      const r = trainingShape(x.config);
      expect(trainingShapeOf(x.config)).toEqual({ batchSize: r.batch, seqLen: r.seqLen, referenceCopy: r.referenceCopy, episodeTokens: x.config.context.maxTotalTokens });
    }
  });

  it('new stages are valid in any pipeline', () => {
    for (const kind of ['sft', 'grpo', 'eval'] as const) {
      const cfg = { ...DEFAULT_PIPELINE, stages: [...DEFAULT_PIPELINE.stages, newStage(kind, DEFAULT_PIPELINE)] };
      expect(validatePipelineConfig(cfg).ok).toBe(true);
    }
    expect(newStage('eval', DEFAULT_PIPELINE)).toMatchObject({ label: 'evaluation 3' });
    // a new merge stage is valid after specialists of a two-task mix
    const two = { ...DEFAULT_PIPELINE, tasks: [...DEFAULT_PIPELINE.tasks, { family: 'function-calling' as const, level: 'route8', weight: 1 }] };
    const spec = { ...two, stages: [{ ...DEFAULT_PIPELINE.stages[0], specialists: true }] } as typeof DEFAULT_PIPELINE;
    expect(validatePipelineConfig({ ...spec, stages: [...spec.stages, newStage('merge', spec)] }).ok).toBe(true);
  });

  it('counts a specialist stage once per specialist in the run size, and names merges', () => {
    const two = { ...DEFAULT_PIPELINE, tasks: [...DEFAULT_PIPELINE.tasks, { family: 'function-calling' as const, level: 'route4', weight: 1 }] };
    const plain = { ...two, stages: [DEFAULT_PIPELINE.stages[0]] };
    const spec = { ...two, stages: [{ ...DEFAULT_PIPELINE.stages[0], specialists: true }, { kind: 'merge' as const, method: 'linear' }] };
    expect(runSizeVsDefault(spec) / runSizeVsDefault(plain)).toBeCloseTo(2);
    expect(describeStages(spec)).toBe('SFT 150 steps per specialist → merge (linear)');
    // a fisher merge first runs a forward and backward per Fisher conversation of each specialist: more work than linear's none
    const fisher = { ...spec, stages: [spec.stages[0], { kind: 'merge' as const, method: 'fisher' }] };
    expect(runSizeVsDefault(fisher)).toBeGreaterThan(runSizeVsDefault(spec));
  });

  it('keys every problem by the path of its field', () => {
    const cfg = structuredClone(DEFAULT_PIPELINE) as unknown as Record<string, unknown> & typeof DEFAULT_PIPELINE;
    (cfg.stages[2] as { lr: number }).lr = 3;
    cfg.seed = -1;
    const r = checkDraft(cfg, new Map([['stages.0.steps', 'must be a number']]));
    expect(r.config).toBeNull();
    expect(Object.fromEntries(r.errors)).toEqual({ 'stages.0.steps': 'must be a number', 'stages.2.lr': 'must be at most 1', seed: 'must be at least 0' });
  });

  it('adds what the page needs: known levels, a train split to train on, a context the model holds', () => {
    const unseen = { ...DEFAULT_PIPELINE, tasks: [{ family: 'function-calling' as const, level: 'bfcl-unseen-tools', weight: 1 }] };
    expect(checkDraft(unseen).errors.get('tasks.0.level')).toMatch(/no train split/);
    const evalOnly = { ...unseen, stages: unseen.stages.filter((s) => s.kind === 'eval') };
    expect(checkDraft(evalOnly).config).not.toBeNull();
    const long = { ...DEFAULT_PIPELINE, context: { maxTotalTokens: 2048, maxNewTokensPerTurn: 128, maxTurns: 8 } };
    expect(checkDraft(long).errors.get('context.maxTotalTokens')).toMatch(/more than preset nano holds \(512 positions\)/);
  });

  it('reads numbers strictly', () => {
    expect([parseNumber(''), parseNumber(' 12 '), parseNumber('3e-3'), parseNumber('.5')]).toEqual([undefined, 12, 0.003, 0.5]);
    expect([parseNumber('3x'), parseNumber('1,5'), parseNumber('0x10')].every(Number.isNaN)).toBe(true);
  });

  it('holds autostart links of runs much larger than the default, and describes stages', () => {
    expect(runSizeVsDefault(DEFAULT_PIPELINE)).toBeCloseTo(1);
    expect(autostartHold(DEFAULT_PIPELINE)).toBeNull();
    const big = { ...DEFAULT_PIPELINE, stages: DEFAULT_PIPELINE.stages.map((s) => (s.kind === 'grpo' ? { ...s, steps: 100 * AUTOSTART_MAX_SIZE } : s)) };
    expect(autostartHold(big)).toMatch(/^This link asks for a long run \(preset nano, SFT 150 steps → eval \(test, n 64\) → GRPO 400 steps × 4 tasks × 8 → eval \(test, n 64\): about \d+× the default run/);
    expect(describeStages({ ...DEFAULT_PIPELINE, stages: [] })).toBe('no stages');
  });

  it('reads and shows GRPO reward weights as COMPONENT=WEIGHT text; anything else is left for the schema to refuse', () => {
    expect(parseRewardWeights(' exact_match=1, function_choice = 0 ')).toEqual({ exact_match: 1, function_choice: 0 });
    expect(parseRewardWeights('  ')).toBeUndefined();
    expect(parseRewardWeights('exact_match')).toBe('exact_match');
    expect(parseRewardWeights('format=x')).toEqual({ format: Number.NaN });
    expect(formatRewardWeights({ exact_match: 1, format: 0 })).toBe('exact_match=1, format=0');
    const cfg = structuredClone(DEFAULT_PIPELINE) as Record<string, unknown> & { stages: Record<string, unknown>[] };
    const i = cfg.stages.findIndex((s) => s.kind === 'grpo');
    cfg.stages[i].rewardWeights = parseRewardWeights('exact_match');
    expect(checkDraft(cfg).errors.get(`stages.${i}.rewardWeights`)).toMatch(/COMPONENT=WEIGHT/);
    cfg.stages[i].rewardWeights = parseRewardWeights('exact_match=1');
    expect(checkDraft(cfg).errors.has(`stages.${i}.rewardWeights`)).toBe(false);
    cfg.stages[i].rewardWeights = parseRewardWeights('exactmatch=1');
    expect(checkDraft(cfg).errors.get(`stages.${i}.rewardWeights`)).toMatch(/^exactmatch: not a reward component of this task mix; its components are .*exact_match/);
  });

  it('reads and shows a stage\'s own LoRA as off / R / R/α text; anything else is left for the schema to refuse', () => {
    expect([parseStageLora(''), parseStageLora(' off '), parseStageLora('FULL'), parseStageLora('8'), parseStageLora('8 / 16')]).toEqual([undefined, false, false, { rank: 8 }, { rank: 8, alpha: 16 }]);
    expect(parseStageLora('eight')).toEqual({ rank: Number.NaN });
    expect(parseStageLora('8/16/2')).toBe('8/16/2');
    expect([formatStageLora(false), formatStageLora({ rank: 8 }), formatStageLora({ rank: 8, alpha: 16 })]).toEqual(['off', '8', '8/16']);
    const cfg = structuredClone(DEFAULT_PIPELINE) as Record<string, unknown> & { stages: Record<string, unknown>[] };
    const i = cfg.stages.findIndex((s) => s.kind === 'sft');
    cfg.stages[i].lora = parseStageLora('off');
    expect([...checkDraft(cfg).errors.keys()]).toEqual([]);
    cfg.stages[i].lora = parseStageLora('8/16');
    expect([...checkDraft(cfg).errors.keys()]).toEqual([]);
    cfg.stages[i].lora = parseStageLora('eight');
    expect(checkDraft(cfg).errors.get(`stages.${i}.lora`)).toMatch(/must be false/);
    cfg.stages[i].lora = parseStageLora('8/16/2');
    expect(checkDraft(cfg).errors.get(`stages.${i}.lora`)).toMatch(/must be false .* or \{rank, alpha\?\}/);
    cfg.stages[i].lora = parseStageLora('1000');
    expect(checkDraft(cfg).errors.get(`stages.${i}.lora.rank`)).toMatch(/more than preset/);
  });
});
