// `npm run debug-state` end to end: a tiny random Qwen3 written in HF layout with our own
// safetensors writer, one forward/backward on a batch with HF labels (−100 ignored), compared with
// the float64 reference model: loss, logits and every gradient (relative error ≤ 1e-3).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { modelToSafetensors } from '../src/model/checkpointIO';
import type { ModelConfig } from '../src/model/config';
import { hfBatchToMasked } from '../src/model/hfBatch';
import { parameterTable } from '../src/model/parameters';
import { readSafetensors } from '../src/model/safetensors';
import { referenceLoss } from '../src/reference/model';
import { relativeError } from '../src/reference/ops/finiteDiff';
import { Rng } from '../src/util/rng';

const ROOT = resolve(__dirname, '..');
const CFG: ModelConfig = {
  vocabSize: 19, hiddenSize: 16, intermediateSize: 24, numLayers: 2, numHeads: 4, numKvHeads: 2, headDim: 8,
  rmsNormEps: 1e-6, ropeTheta: 10000, maxPositionEmbeddings: 32, tieWordEmbeddings: true, tokenizer: 'byte',
};

describe('npm run debug-state', () => {
  it('writes loss, logits and every gradient matching the float64 reference', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tabforge-debug-'));
    const rng = new Rng(21);
    const params = new Map(parameterTable(CFG).map((p) => [p.name, Float32Array.from({ length: p.shape.reduce((a, b) => a * b, 1) }, () => (p.kind === 'norm' ? 1 + rng.normal(0, 0.1) : rng.normal(0, 0.3)))]));
    const { configJson, safetensors } = modelToSafetensors(CFG, params);
    writeFileSync(join(dir, 'config.json'), configJson);
    writeFileSync(join(dir, 'model.safetensors'), safetensors);
    const input_ids = [[1, 5, 7, 2, 9, 3], [4, 4, 8, 1, 0, 2]];
    const labels = [[1, 5, 7, 2, 9, 3], [-100, -100, 8, 1, 0, -100]];
    writeFileSync(join(dir, 'batch.json'), JSON.stringify({ input_ids, labels }));
    const out = join(dir, 'state.safetensors');
    const stdout = execFileSync('npx', ['tsx', '--import', './scripts/lib/wgslLoader.mjs', 'scripts/debug-state.ts', '--model', dir, '--batch', join(dir, 'batch.json'), '--out', out, '--adapter', 'opengles'], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, EGL_PLATFORM: 'surfaceless' } });
    expect(stdout).toMatch(/wrote .*state\.safetensors/);

    const state = readSafetensors(readFileSync(out));
    const { B, T, batch } = hfBatchToMasked({ input_ids, labels }, CFG.vocabSize);
    const ref = referenceLoss(CFG, new Map([...params].map(([k, v]) => [k, Float64Array.from(v)])), batch.inputIds, batch.targets, Float64Array.from(batch.mask), B, T);
    const loss = state.get('loss')!.data[0];
    expect(Math.abs(loss - ref.loss) / ref.loss).toBeLessThanOrEqual(1e-3);
    expect(state.get('logits')!.shape).toEqual([B, T, CFG.vocabSize]);
    expect(relativeError(state.get('logits')!.data, ref.logits)).toBeLessThanOrEqual(1e-3);
    for (const p of parameterTable(CFG)) expect(relativeError(state.get(p.name)!.data, ref.grads.get(p.name)!), p.name).toBeLessThanOrEqual(1e-3);
  });

  it('says what is wrong with a bad batch', () => {
    expect(() => hfBatchToMasked({ input_ids: [[1, 2], [3]] }, 10)).toThrow(/row 1 has 1 tokens, row 0 has 2/);
    expect(() => hfBatchToMasked({ input_ids: [[1, 20]], labels: [[1, 2]] }, 10)).toThrow(/input_ids\[0\]\[1\] = 20 is outside the vocabulary/);
    expect(() => hfBatchToMasked({ input_ids: [[1, 2]], labels: [[1, 12]] }, 10)).toThrow(/use -100 to ignore/);
  });
});
