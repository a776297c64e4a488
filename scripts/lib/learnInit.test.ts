// `npm run learn -- --preset nano --init DIR`: a preset run starts from the weights of a saved folder
// (config.json + model.safetensors, as copy-probe --save writes) instead of the seeded init, through
// the CLI's own path; a folder of another shape, a missing file, or --init beside --model/--resume is
// refused with a message that says what to do.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FunctionCallingTask } from '../../src/envs/functionCalling/types';
import { entryFamily } from '../../src/envs/taskMix';
import { testRuntime } from '../../src/gpu/testDevice';
import { modelFromSafetensors, modelToSafetensors } from '../../src/model/checkpointIO';
import { PRESETS } from '../../src/model/config';
import { initialWeights } from '../../src/model/weights';
import { parseLearnArgs } from './learnArgs';
import { runLearn } from './learnRun';

const root = mkdtempSync(join(tmpdir(), 'learn-init-'));

function writeFolder(name: string, preset: 'nano' | 'tiny', seed: number): { dir: string; params: Map<string, Float32Array> } {
  const dir = join(root, name);
  mkdirSync(dir);
  const params = initialWeights(PRESETS[preset], seed);
  const { configJson, safetensors } = modelToSafetensors(PRESETS[preset], params);
  writeFileSync(join(dir, 'config.json'), configJson);
  writeFileSync(join(dir, 'model.safetensors'), safetensors);
  return { dir, params };
}

/** One SFT step at a negligible learning rate: the trained weights are the starting ones to ~1e-9. */
const flags = (dir: string) => [
  '--family', 'function-calling', '--level', 'route4', '--preset', 'nano', '--init', dir, '--seed', '3',
  '--sft-examples', '4', '--sft-steps', '1', '--sft-batch', '1', '--sft-lr', '1e-12', '--steps', '0', '--no-compare', '--eval-n', '2',
];

describe('npm run learn --init', () => {
  it('starts the preset run from the folder\'s weights, not the seeded init', async () => {
    const { dir, params } = writeFolder('nano-77', 'nano', 77);
    const seeded = initialWeights(PRESETS.nano, 3);
    const rt = await testRuntime('opengles');
    const logs: string[] = [];
    const save = join(root, 'run');
    const summary = await runLearn(rt, parseLearnArgs([...flags(dir), '--save', save]), { log: (l) => logs.push(l), print: () => {} });
    // --steps 0: an SFT-only run, with no "after GRPO" evaluation that would repeat "after SFT" under RL's name
    expect(summary.after_grpo).toBeNull();
    expect(logs.some((l) => l.includes('after GRPO'))).toBe(false);
    // the run's final weights, as it saved them (an HF folder that --init takes in turn)
    const final = modelFromSafetensors(readFileSync(join(save, 'final', 'config.json'), 'utf8'), readFileSync(join(save, 'final', 'model.safetensors')));
    let worst = 0;
    let fromSeeded = 0;
    for (const [name, v] of final.params) {
      const want = params.get(name)!;
      const other = seeded.get(name)!;
      for (let i = 0; i < v.length; i++) {
        worst = Math.max(worst, Math.abs(v[i] - want[i]));
        fromSeeded = Math.max(fromSeeded, Math.abs(v[i] - other[i]));
      }
    }
    expect(final.params.size).toBe(params.size);
    expect(logs.some((l) => l.includes(`starting from the weights in ${dir}`))).toBe(true);
    expect(worst).toBeLessThan(1e-6);
    expect(fromSeeded).toBeGreaterThan(1e-2);
  }, 300_000);

  it('--eval-only scores the folder\'s weights with the baselines and prints greedy episodes of the split; trains nothing', async () => {
    const { dir } = writeFolder('nano-eval', 'nano', 5);
    const rt = await testRuntime('opengles');
    const printed: string[] = [];
    const logs: string[] = [];
    const args = parseLearnArgs(['--family', 'function-calling', '--level', 'route4', '--preset', 'nano', '--init', dir, '--seed', '3', '--eval-only', '--eval-split', 'validation', '--eval-n', '4', '--samples', '2']);
    const summary = await runLearn(rt, args, { log: (l) => logs.push(l), print: (l) => printed.push(l) });
    expect(Object.keys(summary).sort()).toEqual(['baselines', 'family', 'model', 'n', 'seed', 'split']);
    expect(summary).toMatchObject({ family: 'function-calling', split: 'validation', n: 4, seed: 3 });
    expect(Object.keys(summary.baselines as object)).toEqual(expect.arrayContaining(['do nothing', 'majority tool (fit on train)']));
    expect(JSON.parse(printed.at(-1)!)).toEqual(summary); // the last line is the summary
    const samples = printed.filter((l) => l.startsWith('sample '));
    expect(samples).toHaveLength(2);
    const task = entryFamily({ family: 'function-calling', level: 'route4' }).generateTask(3, 0, 'validation') as FunctionCallingTask;
    const request = task.question.find((m) => m.role === 'user')!.content;
    expect(samples[0]).toContain(`sample 1 of 2 (validation task 0, `);
    expect(samples[0]).toContain(`user: ${request}`); // the split's own first task, as evaluations draw it
    expect(printed.some((l) => l.includes('validation') && l.includes('value-type'))).toBe(true); // the comparison table
    expect(logs.some((l) => /SFT|GRPO step/.test(l) && !/starting from/.test(l))).toBe(false); // no training stage ran
  }, 300_000);

  it('refuses another shape, a folder without the files, and --init beside --model or --resume', async () => {
    const rt = await testRuntime('opengles');
    const io = { log: () => {}, print: () => {} };
    const tiny = writeFolder('tiny', 'tiny', 1).dir;
    await expect(runLearn(rt, parseLearnArgs(flags(tiny)), io)).rejects.toThrow(/--init .*differs from preset nano in vocabSize|--init .*differs from preset nano in hiddenSize \(256 vs 96\)/);
    const empty = join(root, 'empty');
    mkdirSync(empty);
    await expect(runLearn(rt, parseLearnArgs(flags(empty)), io)).rejects.toThrow(/no config.json there; give a folder with config.json and model.safetensors/);
    expect(() => parseLearnArgs(['--family', 'function-calling', '--preset', 'qwen3-0.6b', '--model', tiny, '--init', tiny])).toThrow(/--init starts a preset run from saved weights; --model loads/);
    expect(() => parseLearnArgs([...flags(tiny), '--resume', tiny])).toThrow(/drop --init/);
    expect(() => parseLearnArgs(['--family', 'function-calling', '--init', ' '])).toThrow(/--init needs a folder path/);
  });
});
