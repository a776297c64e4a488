// npm run merge on HF-layout folders: full models and a PEFT adapter of the base, TIES; the exact
// adapter merge (--as-adapter); the output loads with our HF reader and equals the in-memory merge.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelFromSafetensors, modelToSafetensors } from '../src/model/checkpointIO';
import type { ModelConfig } from '../src/model/config';
import { initialLoraWeights } from '../src/model/lora';
import { initialWeights } from '../src/model/weights';
import { peftFiles } from '../src/storage/export/peft';
import { writeFolder } from '../src/storage/hfFolder';
import { addLoraDelta } from '../src/train/merge/loraMerge';
import { memorySink, memorySource, mergeModels } from '../src/train/merge/mergeStream';
import { mergeMethod, mergeOptions } from '../src/train/merge/methods';
import { Rng } from '../src/util/rng';

const run = promisify(execFile);
const cfg: ModelConfig = {
  vocabSize: 32, hiddenSize: 8, intermediateSize: 16, numLayers: 1, numHeads: 2, numKvHeads: 1, headDim: 4,
  rmsNormEps: 1e-6, ropeTheta: 10000, maxPositionEmbeddings: 16, tieWordEmbeddings: true, tokenizer: 'byte',
};
const lora = { rank: 2, alpha: 4, targets: ['q_proj', 'v_proj'] as const };
let dir: string;

async function writeModel(path: string, params: Map<string, Float32Array>): Promise<void> {
  await mkdir(path, { recursive: true });
  const { configJson, safetensors } = modelToSafetensors(cfg, params);
  await writeFile(join(path, 'config.json'), configJson);
  await writeFile(join(path, 'model.safetensors'), safetensors);
}

const base = initialWeights(cfg, 1);
const tuned = (seed: number) => {
  const rng = new Rng(seed);
  return new Map([...base].map(([k, v]) => [k, v.map((x) => (rng.next() < 0.3 ? x + rng.normal(0, 0.05) : x))]));
};
const adapter = () => {
  const w = initialLoraWeights(cfg, { ...lora, targets: [...lora.targets] }, 5);
  const rng = new Rng(9);
  for (const [k, v] of w) if (k.includes('lora_B')) v.forEach((_, i) => (v[i] = rng.normal(0, 0.1)));
  return w;
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tabforge-merge-'));
  await writeModel(join(dir, 'base'), base);
  await writeModel(join(dir, 'a'), tuned(2));
  await writeFolder(join(dir, 'lora'), peftFiles({ rank: 2, alpha: 4, tensors: adapter() }));
  await writeFolder(join(dir, 'lora2'), peftFiles({ rank: 2, alpha: 4, tensors: initialLoraWeights(cfg, { ...lora, targets: [...lora.targets] }, 6) }));
});
afterAll(async () => { await rm(dir, { recursive: true, force: true }); });

const tsx = (args: string[]) => run('npx', ['tsx', '--import', './scripts/lib/wgslLoader.mjs', 'scripts/merge.ts', ...args], { cwd: process.cwd() });

describe('npm run merge', () => {
  it('TIES of a full model and a LoRA adapter of the base, streamed to an HF folder', async () => {
    const out = join(dir, 'out');
    const { stdout } = await tsx(['--method', 'ties', '--base', join(dir, 'base'), '--models', join(dir, 'a'), join(dir, 'lora'), '--density', '0.5', '--weights', '1', '0.5', '--out', out]);
    expect(stdout).toMatch(/merged 2 models with ties: \d+ tensors/);
    const merged = modelFromSafetensors(await readFile(join(out, 'config.json'), 'utf8'), await readFile(join(out, 'model.safetensors')));
    // the same merge in memory, the adapter expanded by hand
    const src = (m: Map<string, Float32Array>, label: string) => memorySource(label, new Map([...m].map(([k, v]) => [k, { shape: [v.length], data: v }])));
    const withLora = new Map(base);
    const a = adapter();
    for (const t of lora.targets) {
      const w = `model.layers.0.self_attn.${t}.weight`;
      const p = `base_model.model.model.layers.0.self_attn.${t}`;
      withLora.set(w, addLoraDelta(base.get(w)!, a.get(`${p}.lora_A.weight`)!, a.get(`${p}.lora_B.weight`)!, 2, 2, t));
    }
    const sink = memorySink();
    const method = mergeMethod('ties');
    await mergeModels({ method, options: mergeOptions(method, 2, { density: 0.5, weights: [1, 0.5] }), base: src(base, 'base'), models: [src(tuned(2), 'a'), src(withLora, 'lora')], sink });
    for (const [name, v] of merged.params) expect([...v]).toEqual([...sink.tensors.get(name)!.data]);
    expect(JSON.parse(await readFile(join(out, 'merge_config.json'), 'utf8')).method).toBe('ties');
  });

  it('--as-adapter writes one exact PEFT adapter (rank Σr); bad input gets a clear error', async () => {
    const out = join(dir, 'adapter-out');
    const { stdout } = await tsx(['--method', 'task-arithmetic', '--base', join(dir, 'base'), '--models', join(dir, 'lora'), join(dir, 'lora2'), '--as-adapter', '--out', out]);
    expect(stdout).toMatch(/one rank-4 adapter/);
    const cfgJson = JSON.parse(await readFile(join(out, 'adapter_config.json'), 'utf8'));
    expect([cfgJson.r, cfgJson.lora_alpha, cfgJson.target_modules]).toEqual([4, 4, ['q_proj', 'v_proj']]);
    await expect(tsx(['--method', 'ties', '--base', join(dir, 'base'), '--models', join(dir, 'lora'), '--as-adapter', '--out', out]))
      .rejects.toMatchObject({ stderr: expect.stringMatching(/--as-adapter works for linear and task-arithmetic/) });
    await expect(tsx(['--method', 'soup', '--models', join(dir, 'a'), '--out', out])).rejects.toMatchObject({ stderr: expect.stringMatching(/--method 'soup' is unknown/) });
    await expect(tsx(['--method', 'fisher', '--models', join(dir, 'a'), join(dir, 'a'), '--out', out])).rejects.toMatchObject({ stderr: expect.stringMatching(/--method fisher weighs each model by its diagonal Fisher.*npm run merge-table/) });
  });
});
