// `npm run debug-state` with bad input, as a user runs it: it must refuse with a clear message and a
// non-zero exit, and leave every input untouched. (The happy path is in debugState.test.ts.)
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelFromSafetensors, modelToSafetensors } from '../src/model/checkpointIO';
import type { ModelConfig } from '../src/model/config';
import { hfConfigJson } from '../src/model/hfConfig';
import { parameterTable } from '../src/model/parameters';
import { writeSafetensors } from '../src/model/safetensors';
import { Rng } from '../src/util/rng';
import { checkOutPath, DebugStateError, parseDebugStateArgs, writeAtomically } from './lib/debugStateIO';

const ROOT = resolve(__dirname, '..');
const CFG: ModelConfig = {
  vocabSize: 19, hiddenSize: 16, intermediateSize: 24, numLayers: 2, numHeads: 4, numKvHeads: 2, headDim: 8,
  rmsNormEps: 1e-6, ropeTheta: 10000, maxPositionEmbeddings: 32, tieWordEmbeddings: true, tokenizer: 'byte',
};
const dir = mkdtempSync(join(tmpdir(), 'tabforge-debug-safety-'));
const modelDir = join(dir, 'model');
const batchFile = join(dir, 'batch.json');
let params: Map<string, Float32Array>;

function writeModel(folder: string, cfg: ModelConfig, p: Map<string, Float32Array>, configFor = cfg): void {
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'config.json'), hfConfigJson(configFor));
  writeFileSync(join(folder, 'model.safetensors'), modelToSafetensors(cfg, p).safetensors);
}

beforeAll(() => {
  const rng = new Rng(5);
  params = new Map(parameterTable(CFG).map((p) => [p.name, Float32Array.from({ length: p.shape.reduce((a, b) => a * b, 1) }, () => rng.normal(0, 0.3))]));
  writeModel(modelDir, CFG, params);
  writeFileSync(batchFile, JSON.stringify({ input_ids: [[1, 5, 7, 2]], labels: [[1, 5, 7, 2]] }));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = promisify(execFile);
async function debugState(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', '--import', './scripts/lib/wgslLoader.mjs', 'scripts/debug-state.ts', ...args, '--adapter', 'opengles'], { cwd: ROOT, timeout: 60_000, env: { ...process.env, EGL_PLATFORM: 'surfaceless' } });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: err.code ?? -1, stdout: err.stdout ?? '', stderr: err.stderr ?? '' };
  }
}

const digest = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

describe('npm run debug-state refuses bad input', () => {
  it('never writes over an input: --out D/model.safetensors leaves the model as it was', async () => {
    const before = digest(join(modelDir, 'model.safetensors'));
    const r = await debugState(['--model', modelDir, '--batch', batchFile, '--out', join(modelDir, 'model.safetensors')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/--out .*model\.safetensors is the model weights .*never writes over its inputs/);
    expect(r.stdout).not.toMatch(/loss/);
    expect(digest(join(modelDir, 'model.safetensors'))).toBe(before);
  });

  it('refuses each bad input with what to do, before computing anything', async () => {
    const nanModel = join(dir, 'nan');
    const nanParams = new Map(params);
    const bad = Float32Array.from(params.get('model.norm.weight')!);
    bad[1] = Number.NaN;
    bad[2] = Number.POSITIVE_INFINITY;
    nanParams.set('model.norm.weight', bad);
    writeModel(nanModel, CFG, nanParams);
    const shallow = join(dir, 'shallow');
    writeModel(shallow, CFG, params, { ...CFG, numLayers: 1 });
    const grads = join(dir, 'grads');
    mkdirSync(grads);
    writeFileSync(join(grads, 'config.json'), hfConfigJson(CFG));
    const state = new Map([...params].map(([k, v]) => [k, { shape: parameterTable(CFG).find((p) => p.name === k)!.shape, data: v }]));
    state.set('loss', { shape: [1], data: Float32Array.of(2.5) });
    state.set('logits', { shape: [1, 4, 19], data: new Float32Array(76) });
    writeFileSync(join(grads, 'model.safetensors'), writeSafetensors(state, { format: 'pt', producer: 'tabforge debug-state' }));
    const ignored = join(dir, 'ignored.json');
    writeFileSync(ignored, JSON.stringify({ input_ids: [[1, 5, 7, 2]], labels: [[-100, -100, -100, -100]] }));
    const out = join(dir, 'state.safetensors');

    const cases: { args: string[]; code: number; message: RegExp }[] = [
      { args: ['--model', modelDir, '--batch', batchFile, '--out', join(dir, 'no-such-folder', 's.safetensors')], code: 1, message: /the folder of --out .* does not exist; create it .*checked before computing/ },
      { args: ['--model', modelDir, '--batch', join(dir, 'missing.json'), '--out', out], code: 1, message: /cannot read the batch file at .*missing\.json: no such file/ },
      { args: ['--model', modelDir, '--batch', ignored, '--out', out], code: 1, message: /the batch scores no position: every label .* is -100/ },
      { args: ['--model', nanModel, '--batch', batchFile, '--out', out], code: 1, message: /NaN or infinite weights in 1 tensor: 'model\.norm\.weight' \(2 of 16\)/ },
      { args: ['--model', shallow, '--batch', batchFile, '--out', out], code: 1, message: /the file has 2 layers .* config\.json says num_hidden_layers 1/ },
      { args: ['--model', grads, '--batch', batchFile, '--out', out], code: 1, message: /not a Qwen3 model: the file holds 2 tensors that are not model parameters: 'loss', 'logits' \(it looks like a debug-state output/ },
      { args: ['--model', modelDir, '--batch', batchFile, '--out', out, '--out', join(dir, 'other.safetensors')], code: 2, message: /--out is given 2 times/ },
    ];
    const results: { code: number; stdout: string; stderr: string }[] = [];
    for (let i = 0; i < cases.length; i += 2) results.push(...(await Promise.all(cases.slice(i, i + 2).map((c) => debugState(c.args)))));
    cases.forEach((c, i) => {
      expect(results[i].stderr, c.args.join(' ')).toMatch(c.message);
      expect(results[i].code, results[i].stderr).toBe(c.code);
      expect(results[i].stdout).not.toMatch(/^loss/m);
    });
    expect(existsSync(out)).toBe(false);
  });
});

describe('debug-state argument and output handling', () => {
  const args = (out: string) => parseDebugStateArgs(['--model', modelDir, '--batch', batchFile, '--out', out]);

  it('refuses --out that is an input under another spelling or a hard link, or a folder', () => {
    expect(() => checkOutPath(args(join(modelDir, '..', 'model', 'config.json')))).toThrow(/is the model config/);
    const link = join(dir, 'alias.safetensors');
    linkSync(join(modelDir, 'model.safetensors'), link);
    expect(() => checkOutPath(args(link))).toThrow(/is the model weights/);
    expect(() => checkOutPath(args(batchFile))).toThrow(/is the batch file/);
    expect(() => checkOutPath(args(dir))).toThrow(/is a folder/);
    expect(() => checkOutPath(args(join(dir, 'fresh.safetensors')))).not.toThrow();
  });

  it('refuses unknown, repeated and empty flags with the usage', () => {
    for (const argv of [['--model', 'a', '--batch', 'b', '--out', 'c', '--bogus'], ['--model', 'a', '--model', 'b', '--batch', 'b', '--out', 'c'], ['--model', '--batch', 'b', '--out', 'c'], ['--batch', 'b', '--out', 'c'], ['--model', 'a', '--batch', 'b', '--out', 'c', '--adapter', 'metal']]) {
      let error: unknown;
      try {
        parseDebugStateArgs(argv);
      } catch (e) {
        error = e;
      }
      expect(error, argv.join(' ')).toBeInstanceOf(DebugStateError);
      expect((error as DebugStateError).exitCode).toBe(2);
      expect((error as Error).message).toContain('usage: npm run debug-state');
    }
  });

  it('writes through a temporary file and a rename, leaving nothing else behind', () => {
    const folder = mkdtempSync(join(dir, 'out-'));
    const out = join(folder, 'state.safetensors');
    writeFileSync(out, 'old');
    writeAtomically(out, new Uint8Array([1, 2, 3]));
    expect([...readFileSync(out)]).toEqual([1, 2, 3]);
    expect(readdirSync(folder)).toEqual(['state.safetensors']);
    expect(() => writeAtomically(join(folder, 'missing', 'x'), new Uint8Array(1))).toThrow(/could not write .*nothing was changed/);
    expect(readdirSync(folder)).toEqual(['state.safetensors']);
  });

  it('the model loader names non-parameter tensors and layers the config does not have', () => {
    const state = new Map([...params].map(([k, v]) => [k, { shape: parameterTable(CFG).find((p) => p.name === k)!.shape, data: v }]));
    state.set('loss', { shape: [1], data: Float32Array.of(1) });
    expect(() => modelFromSafetensors(hfConfigJson(CFG), writeSafetensors(state))).toThrow(/not a Qwen3 model: the file holds 1 tensor that is not model parameters: 'loss'/);
    expect(() => modelFromSafetensors(hfConfigJson({ ...CFG, numLayers: 1 }), modelToSafetensors(CFG, params).safetensors)).toThrow(/the file has 2 layers/);
  });
});
