// npm run export: HF folder → ONNX (runs in onnxruntime-web), a LoRA checkpoint → PEFT zip and HF
// folder (import them back), and clear errors.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import * as ort from 'onnxruntime-web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelToSafetensors } from '../src/model/checkpointIO';
import { PRESETS } from '../src/model/config';
import { initialLoraWeights, type LoraConfig } from '../src/model/lora';
import { initialWeights } from '../src/model/weights';
import { saveCheckpoint } from '../src/storage/checkpoint';
import { DiskBackend } from '../src/storage/diskBackend';
import { filesFromZip, importHfModel, importPeftAdapter } from '../src/storage/export/importModel';
import { tokenizerIdentity } from '../src/storage/format';
import { ByteTokenizer } from '../src/tokenizer';
import { parseExportArgs } from './lib/exportArgs';

const run = promisify(execFile);
const cli = (args: string[]) => run('npx', ['tsx', '--import', './scripts/lib/wgslLoader.mjs', 'scripts/export.ts', ...args], { cwd: process.cwd() });
const cfg = PRESETS.nano;
const params = initialWeights(cfg, 2);
const lora: LoraConfig = { rank: 2, alpha: 4, targets: ['q_proj', 'o_proj'] };
const adapters = initialLoraWeights(cfg, lora, 3);
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tabforge-export-'));
  await mkdir(join(dir, 'hf'));
  const { configJson, safetensors } = modelToSafetensors(cfg, params);
  await writeFile(join(dir, 'hf', 'config.json'), configJson);
  await writeFile(join(dir, 'hf', 'model.safetensors'), safetensors);
  await saveCheckpoint(new DiskBackend(join(dir, 'ckpt')), {
    preset: 'nano', model: cfg, tokenizer: await tokenizerIdentity(new ByteTokenizer()), lora, policyVersion: 3,
    training: { stage: 'rl', step: 3, seed: 1, optimizerStep: 3, rng: {}, cursors: {} },
    tensors: [
      ...[...params].map(([name, data]) => ({ group: 'model', name, shape: [data.length], data })),
      ...[...adapters].map(([name, data]) => ({ group: 'lora', name, shape: [data.length], data })),
    ],
  }, { id: 'rl-3' });
});
afterAll(async () => { await rm(dir, { recursive: true, force: true }); });

describe('npm run export', () => {
  it('--model DIR --format onnx: a file onnxruntime-web runs', async () => {
    const out = join(dir, 'model.onnx');
    const { stdout } = await cli(['--model', join(dir, 'hf'), '--format', 'onnx', '--out', out]);
    expect(stdout).toMatch(/exported onnx \(model\.onnx/);
    ort.env.wasm.numThreads = 1;
    const session = await ort.InferenceSession.create(new Uint8Array(await readFile(out)), { executionProviders: ['wasm'] });
    const res = await session.run({ input_ids: new ort.Tensor('int64', BigInt64Array.of(1n, 2n, 3n), [1, 3]) });
    expect(res.logits.dims).toEqual([1, 3, cfg.vocabSize]);
    await session.release();
  });

  it('--format onnx --external-data: the weights in OUT.data beside the .onnx file, which ORT loads', async () => {
    const out = join(dir, 'ext', 'tiny-model.onnx');
    const { stdout } = await cli(['--model', join(dir, 'hf'), '--format', 'onnx', '--external-data', '--out', out]);
    expect(stdout).toMatch(/exported onnx \(model\.onnx, tiny-model\.onnx\.data/);
    ort.env.wasm.numThreads = 1;
    const data = new Uint8Array(await readFile(`${out}.data`));
    const session = await ort.InferenceSession.create(new Uint8Array(await readFile(out)), { executionProviders: ['wasm'], externalData: [{ path: 'tiny-model.onnx.data', data }] });
    const res = await session.run({ input_ids: new ort.Tensor('int64', BigInt64Array.of(1n, 2n, 3n), [1, 3]) });
    expect(res.logits.dims).toEqual([1, 3, cfg.vocabSize]);
    await session.release();
  });

  it('--checkpoint (store folder → newest) as a PEFT zip and as an HF folder with the adapter merged in', async () => {
    const zip = join(dir, 'adapter.zip');
    await cli(['--checkpoint', join(dir, 'ckpt'), '--format', 'peft', '--out', zip]);
    const adapter = await importPeftAdapter(await filesFromZip(new Uint8Array(await readFile(zip))));
    expect(adapter.lora).toEqual(lora);
    expect(adapter.tensors.get('base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight')).toEqual(adapters.get('base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight'));
    const hf = join(dir, 'merged');
    const { stdout } = await cli(['--checkpoint', join(dir, 'ckpt', 'rl-3'), '--format', 'hf', '--out', hf]);
    expect(stdout).toMatch(/checkpoint rl-3: nano, rl step 3/);
    const files = new Map<string, Uint8Array>();
    for (const f of ['config.json', 'model.safetensors', 'generation_config.json']) files.set(f, new Uint8Array(await readFile(join(hf, f))));
    const model = await importHfModel(files);
    expect(model.cfg).toEqual(cfg);
    expect(model.params.get('model.norm.weight')).toEqual(params.get('model.norm.weight'));
  });

  it('explains bad input', async () => {
    await expect(cli(['--model', join(dir, 'hf'), '--format', 'peft', '--out', join(dir, 'x')])).rejects.toMatchObject({ stderr: expect.stringMatching(/--format peft needs a model with LoRA adapters/) });
    expect(() => parseExportArgs(['--format', 'hf', '--out', 'x'])).toThrow(/give exactly one of --model DIR and --checkpoint PATH/);
    expect(() => parseExportArgs(['--model', 'm', '--format', 'gguf', '--out', 'x'])).toThrow(/--format takes one of hf, peft, onnx, got 'gguf'/);
  });
});
