// npm run export of a trimmed-Qwen3 model: written out as a standard Qwen3 HF folder (151 936 rows,
// each kept row at its Qwen3 id, Qwen3's tokenizer files beside it).
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { modelToSafetensors } from '../src/model/checkpointIO';
import { TRIMMED_QWEN3_VOCAB_SIZE, type ModelConfig } from '../src/model/config';
import { initialWeights } from '../src/model/weights';
import { importHfModel } from '../src/storage/export/importModel';
import { loadTrimmedQwen3Tokenizer } from '../src/tokenizer/tokenizerForModel';

const run = promisify(execFile);
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const MICRO_Q: ModelConfig = {
  vocabSize: TRIMMED_QWEN3_VOCAB_SIZE, hiddenSize: 8, intermediateSize: 16, numLayers: 1, numHeads: 2, numKvHeads: 1, headDim: 4,
  rmsNormEps: 1e-6, ropeTheta: 10000, maxPositionEmbeddings: 64, tieWordEmbeddings: true, tokenizer: 'qwen3-trimmed',
};

describe('npm run export of a trimmed-vocabulary model', () => {
  it('--format hf writes a full-vocabulary Qwen3 folder whose rows sit at the Qwen3 ids', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tabforge-export-q-'));
    dirs.push(dir);
    await mkdir(join(dir, 'in'));
    const params = initialWeights(MICRO_Q, 4);
    const { configJson, safetensors } = modelToSafetensors(MICRO_Q, params);
    await writeFile(join(dir, 'in', 'config.json'), configJson);
    await writeFile(join(dir, 'in', 'model.safetensors'), safetensors);

    const { stdout } = await run('npx', ['tsx', '--import', './scripts/lib/wgslLoader.mjs', 'scripts/export.ts', '--model', join(dir, 'in'), '--format', 'hf', '--out', join(dir, 'out')], { cwd: process.cwd() });
    expect(stdout).toMatch(/the full 151936-row Qwen3 vocabulary/);
    const names = await readdir(join(dir, 'out'));
    expect(names).toEqual(expect.arrayContaining(['config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json']));
    const files = new Map<string, Uint8Array>();
    for (const f of ['config.json', 'model.safetensors']) files.set(f, new Uint8Array(await readFile(join(dir, 'out', f))));
    const model = await importHfModel(files);
    expect(model.cfg).toEqual({ ...MICRO_Q, vocabSize: 151936, tokenizer: 'qwen3' });

    const tok = await loadTrimmedQwen3Tokenizer();
    const C = MICRO_Q.hiddenSize;
    const small = params.get('model.embed_tokens.weight')!;
    const full = model.params.get('model.embed_tokens.weight')!;
    const id = tok.imEndId;
    expect(Array.from(full.subarray(151645 * C, 151646 * C))).toEqual(Array.from(small.subarray(id * C, (id + 1) * C)));
    expect(model.params.get('model.norm.weight')).toEqual(params.get('model.norm.weight'));
  }, 120_000);
});
