import { describe, expect, it } from 'vitest';
import { modelToSafetensors } from '../model/checkpointIO';
import { BYTE_VOCAB_SIZE, type ModelConfig, PRESETS } from '../model/config';
import { countParameters } from '../model/parameters';
import { initialWeights } from '../model/weights';
import { checkFetchedConfig, checkTrainable, formatCount, loadModelFromFiles, loadModelFromUrl, modelUrlBase, pickModelFiles } from './modelSource';

const TINY: ModelConfig = {
  vocabSize: BYTE_VOCAB_SIZE, hiddenSize: 32, intermediateSize: 64, numLayers: 1, numHeads: 2, numKvHeads: 1, headDim: 16,
  rmsNormEps: 1e-6, ropeTheta: 10000, maxPositionEmbeddings: 512, tieWordEmbeddings: true, tokenizer: 'byte',
};
const { configJson, safetensors } = modelToSafetensors(TINY, initialWeights(TINY, 3));
const file = (parts: BlobPart[], name: string) => new File(parts, name);

describe('model files', () => {
  it('picks config.json and model.safetensors, saying what is missing', () => {
    const cfg = file([configJson], 'config.json');
    const st = file([safetensors], 'model.safetensors');
    expect(pickModelFiles([file(['x'], 'README.md'), st, cfg])).toEqual({ config: cfg, weights: st });
    expect(() => pickModelFiles([cfg])).toThrow(/no \.safetensors file among the picked files \(got: config\.json\)/);
    expect(() => pickModelFiles([st])).toThrow(/no config\.json among the picked files/);
    expect(() => pickModelFiles([cfg, file([], 'model-00001-of-00002.safetensors'), file([], 'model-00002-of-00002.safetensors')])).toThrow(/sharded checkpoints/);
  });

  it('loads picked files with progress up to the file size', async () => {
    const seen: number[] = [];
    const m = await loadModelFromFiles([file([configJson], 'config.json'), file([safetensors], 'model.safetensors')], (p) => {
      expect(p.phase).toBe('read');
      expect(p.totalBytes).toBe(safetensors.byteLength);
      seen.push(p.loadedBytes);
    });
    expect(m.parameters).toBe(countParameters(TINY));
    expect(m.cfg).toMatchObject({ hiddenSize: 32, numLayers: 1 });
    expect(m.params.get('model.layers.0.mlp.up_proj.weight')).toHaveLength(64 * 32);
    expect(seen.at(-1)).toBe(safetensors.byteLength);
    expect([...seen].sort((a, b) => a - b)).toEqual(seen);
  });

  it('names the tensor and shapes when the weights do not match config.json', async () => {
    const other = { ...TINY, intermediateSize: 96 };
    const wrong = modelToSafetensors(other, initialWeights(other, 1)).safetensors;
    await expect(loadModelFromFiles([file([configJson], 'config.json'), file([wrong], 'model.safetensors')]))
      .rejects.toThrow(/tensor 'model\.layers\.0\.mlp\.gate_proj\.weight': expected shape \[64, 32\], found \[96, 32\]/);
  });

  it('rejects a corrupt safetensors file with a message', async () => {
    const junk = new Uint8Array(64).fill(0xff);
    await expect(loadModelFromFiles([file([configJson], 'config.json'), file([junk], 'model.safetensors')])).rejects.toThrow(/safetensors/i);
  });
});

describe('model URLs', () => {
  it('turns what a person pastes into a folder URL', () => {
    const page = 'http://127.0.0.1:4173/';
    expect(modelUrlBase('https://h.org/m/x', page)).toBe('https://h.org/m/x/');
    expect(modelUrlBase('https://h.org/m/x/config.json?download=1', page)).toBe('https://h.org/m/x/');
    expect(modelUrlBase(' https://h.org/m/x/model.safetensors ', page)).toBe('https://h.org/m/x/');
    expect(modelUrlBase('/models/tiny', page)).toBe('http://127.0.0.1:4173/models/tiny/');
    expect(() => modelUrlBase('', page)).toThrow(/give the URL/);
    expect(() => modelUrlBase('ftp://h.org/x', page)).toThrow(/only http\(s\)/);
  });

  it('downloads with byte progress, then reads the tensors', async () => {
    const served: string[] = [];
    const fakeFetch = (async (url: string) => {
      served.push(url);
      if (url.endsWith('config.json')) return new Response(configJson);
      if (url.endsWith('model.safetensors')) {
        // Three chunks so progress is seen mid-way.
        const third = Math.ceil(safetensors.byteLength / 3);
        const stream = new ReadableStream<Uint8Array>({
          start(c) {
            for (let i = 0; i < safetensors.byteLength; i += third) c.enqueue(safetensors.slice(i, i + third));
            c.close();
          },
        });
        return new Response(stream, { headers: { 'content-length': String(safetensors.byteLength) } });
      }
      return new Response('no', { status: 404, statusText: 'Not Found' });
    }) as typeof fetch;
    const downloads: number[] = [];
    const m = await loadModelFromUrl('https://h.org/m/', (p) => {
      if (p.phase === 'download') downloads.push(p.loadedBytes);
    }, { fetch: fakeFetch });
    expect(served).toEqual(['https://h.org/m/config.json', 'https://h.org/m/model.safetensors']);
    expect(downloads.length).toBeGreaterThanOrEqual(4);
    expect(downloads.at(-1)).toBe(safetensors.byteLength);
    expect(m.parameters).toBe(countParameters(TINY));
    expect(m.source).toBe('https://h.org/m/');
  });

  it('says which URL failed', async () => {
    const notFound = (async () => new Response('no', { status: 404, statusText: 'Not Found' })) as unknown as typeof fetch;
    await expect(loadModelFromUrl('https://h.org/m/', undefined, { fetch: notFound })).rejects.toThrow('fetching https://h.org/m/config.json failed: HTTP 404 Not Found');
  });
});

describe('trainability', () => {
  const limits = { maxBufferSize: 256 * 2 ** 20, maxStorageBufferBindingSize: 128 * 2 ** 20 };
  it('reports memory and that a small model fits', () => {
    const r = checkTrainable(TINY, { batchSize: 4, seqLen: 512 }, limits);
    expect(r.ok).toBe(true);
    expect(r.lines[0]).toMatch(/^training at batch 4 × 512 tokens needs [\d.]+ MiB/);
    expect(r.lines[1]).toMatch(/^fits this adapter/);
  });

  it('refuses Qwen3-0.6B on a 128 MiB binding, and a too-short context', () => {
    const r = checkTrainable(PRESETS['qwen3-0.6b'], { batchSize: 1, seqLen: 512 }, limits);
    expect(r.ok).toBe(false);
    expect(r.lines.join('\n')).toMatch(/does not fit this adapter: the loaded model needs a [\d.]+ MiB storage binding/);
    expect(checkTrainable(TINY, { batchSize: 1, seqLen: 1024 }, null).lines.join('\n')).toMatch(/the pipeline's episodes are up to 1024 tokens, more than the model's max_position_embeddings 512: load a model with a context of at least 1024/);
  });

  it('formats counts', () => {
    expect([formatCount(999), formatCount(15_400), formatCount(432_672), formatCount(596_049_920)]).toEqual(['999', '15.4 k', '432.7 k', '596.05 M']);
  });
});

describe('a fetched config.json that is not one', () => {
  it('says the URL answered with a web page (a network problem), not to pick files', () => {
    const page = () => checkFetchedConfig('https://x.org/m/config.json', 'text/html; charset=utf-8', '<!doctype html><title>Not found</title>');
    expect(page).toThrow(/^https:\/\/x\.org\/m\/config\.json answered with a web page \(text\/html; charset=utf-8\), not the model's config\.json: .*Check the address$/);
    expect(() => checkFetchedConfig('u/config.json', 'application/json', '<html>')).toThrow(/answered with a web page/);
    const json = () => checkFetchedConfig('u/config.json', 'application/json', '{"hidden_size": ');
    expect(json).toThrow(/^u\/config\.json is not a usable model config \(config\.json is not valid JSON .*\): check that the URL points at the model's folder$/);
    expect(json).not.toThrow(/pick the model's config\.json file/);
  });
});
