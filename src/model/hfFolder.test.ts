// Loading a Hugging Face Qwen3 folder, streamed into GpuWeights: sharded (index) and single-file,
// BF16 and F16, f32 or f16 storage with the vocabulary in row parts; byte progress; from Blobs and
// from a URL whose connection breaks halfway (resumed with Range); and every bad folder refused
// with a message naming what is wrong.
import { describe, expect, it } from 'vitest';
import { testRuntime } from '../gpu/testDevice';
import { BYTE_VOCAB_SIZE, type ModelConfig } from './config';
import { bf16BitsToFloat32, float32ToBF16Bits, roundToF16 } from './halfFloat';
import { hfConfigJson } from './hfConfig';
import { inspectHfFolder, loadHfWeights } from './hfFolder';
import { type FolderFile, hfFolderFiles, seededRows } from './hfFolderWriter';
import { BlobFileSource, UrlFileSource } from './modelFiles';
import { parameterTable } from './parameters';
import { writeSafetensors } from './safetensors';

const CFG: ModelConfig = {
  vocabSize: BYTE_VOCAB_SIZE, hiddenSize: 32, intermediateSize: 48, numLayers: 2, numHeads: 4, numKvHeads: 2, headDim: 8,
  rmsNormEps: 1e-6, ropeTheta: 10000, maxPositionEmbeddings: 64, tieWordEmbeddings: false, tokenizer: 'byte',
};

function bytesOf(f: FolderFile): Uint8Array<ArrayBuffer> {
  const parts = [...f.chunks()];
  const out = new Uint8Array(parts.reduce((s, p) => s + p.byteLength, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.byteLength; }
  return out;
}

const blobs = (files: FolderFile[]) => new BlobFileSource(files.map((f) => [f.name, new Blob([bytesOf(f)])] as [string, Blob]));

/** The values the writer stored, as they come back from a BF16 / F16 file. */
function expectedValues(cfg: ModelConfig, seed: number, round: (x: number) => number): Map<string, Float32Array> {
  const fill = seededRows(cfg, seed);
  return new Map(parameterTable(cfg).map((p) => {
    const out = new Float32Array(p.shape.reduce((a, b) => a * b, 1));
    fill(p, 0, p.shape.length === 2 ? p.shape[0] : 1, out);
    return [p.name, out.map(round)];
  }));
}
const bf16 = (x: number) => bf16BitsToFloat32(float32ToBF16Bits(x));

describe('HF folder loading (llvmpipe)', () => {
  it('sharded BF16 (index + 4 shards) into f32 and into an f16 base split in row parts; progress to the last byte', async () => {
    const rt = await testRuntime('opengles');
    const files = hfFolderFiles(CFG, seededRows(CFG, 5), { dtype: 'BF16', maxShardBytes: 20_000, chunkBytes: 1000 });
    expect(files.map((f) => f.name)).toEqual(['config.json', ...[1, 2, 3, 4].map((i) => `model-0000${i}-of-00004.safetensors`), 'model.safetensors.index.json']);
    const src = blobs(files);
    const folder = await inspectHfFolder(src);
    expect(folder.files.length).toBe(4);
    expect(folder.totalBytes).toBe(files.filter((f) => f.name.endsWith('.safetensors')).reduce((s, f) => s + f.size, 0));
    const want = expectedValues(CFG, 5, bf16);
    const seen: number[] = [];
    const w = await loadHfWeights(rt, src, folder, {}, (p) => seen.push(p.loadedBytes));
    expect(await w.download()).toEqual(want);
    expect(seen.at(-1)).toBe(folder.totalBytes);
    expect([...seen].sort((a, b) => a - b)).toEqual(seen);
    w.destroy();
    const f16 = await loadHfWeights(rt, src, folder, { f16Base: true, maxPartBytes: 4096 });
    expect(f16.parts('lm_head.weight').length).toBe(5); // 272 rows × 32 f16 = 17 KiB in 4 KiB parts
    const got = await f16.download();
    for (const p of parameterTable(CFG)) expect(got.get(p.name), p.name).toEqual(p.shape.length === 2 ? want.get(p.name)!.map(roundToF16) : want.get(p.name));
    f16.destroy();
  });

  it('single-file F16 with a tied head; an lm_head.weight in the file is ignored with a warning', async () => {
    const rt = await testRuntime('opengles');
    const tied = { ...CFG, tieWordEmbeddings: true };
    const files = hfFolderFiles(tied, seededRows(tied, 6), { dtype: 'F16' });
    expect(files.map((f) => f.name)).toEqual(['config.json', 'model.safetensors']);
    const w = await loadHfWeights(rt, blobs(files), await inspectHfFolder(blobs(files)));
    expect(await w.download()).toEqual(expectedValues(tied, 6, roundToF16));
    w.destroy();
    const values = expectedValues(tied, 6, (x) => x);
    const withHead = writeSafetensors(new Map([...[...values].map(([k, v]) => [k, { shape: parameterTable(tied).find((p) => p.name === k)!.shape, data: v, dtype: 'BF16' as const }] as const), ['lm_head.weight', { shape: [BYTE_VOCAB_SIZE, 32], data: values.get('model.embed_tokens.weight')!, dtype: 'BF16' as const }]]));
    const src = new BlobFileSource([['config.json', new Blob([hfConfigJson(tied)])], ['model.safetensors', new Blob([withHead])]]);
    expect((await inspectHfFolder(src)).warnings).toContain('lm_head.weight ignored: config.json ties embeddings, so the LM head reuses model.embed_tokens.weight');
  });

  it('refuses, naming the problem: a config that is not Qwen3, missing / extra / misshapen / unreadable tensors, a shard the index names but the folder lacks', async () => {
    const values = expectedValues(CFG, 7, (x) => x);
    const tensors = (edit: (m: Map<string, { shape: readonly number[]; data: Float32Array | Int32Array; dtype?: 'F32' | 'BF16' | 'I32' }>) => void) => {
      const m = new Map([...values].map(([k, v]) => [k, { shape: parameterTable(CFG).find((p) => p.name === k)!.shape, data: v as Float32Array | Int32Array, dtype: 'BF16' as 'F32' | 'BF16' | 'I32' }]));
      edit(m);
      return writeSafetensors(m);
    };
    const folder = (config: string, weights: Uint8Array<ArrayBuffer>) => new BlobFileSource([['config.json', new Blob([config])], ['model.safetensors', new Blob([weights])]], 'the test folder');
    const good = hfConfigJson(CFG);
    await expect(inspectHfFolder(folder(good.replace('"qwen3"', '"llama"'), tensors(() => {})))).rejects.toThrow(/model_type "llama" is not supported: TabForge trains the Qwen3 architecture/);
    await expect(inspectHfFolder(folder(good, tensors((m) => m.delete('model.layers.1.mlp.up_proj.weight'))))).rejects.toThrow(/tensor 'model\.layers\.1\.mlp\.up_proj\.weight' \[48, 32\] is missing/);
    await expect(inspectHfFolder(folder(good, tensors((m) => m.set('model.layers.2.mlp.up_proj.weight', { shape: [48, 32], data: new Float32Array(48 * 32) }))))).rejects.toThrow(/the file has 3 layers \(1 tensor beyond layer 1, e\.g\. 'model\.layers\.2\.mlp\.up_proj\.weight'\) but config\.json says num_hidden_layers 2/);
    await expect(inspectHfFolder(folder(good, tensors((m) => m.set('loss', { shape: [1], data: new Float32Array(1) }))))).rejects.toThrow(/not a Qwen3 model: the file holds 1 tensor that is not model parameters: 'loss'/);
    await expect(inspectHfFolder(folder(good, tensors((m) => m.set('model.norm.weight', { shape: [32], data: new Int32Array(32), dtype: 'I32' }))))).rejects.toThrow(/tensor 'model\.norm\.weight': expected a float dtype \(F32, F16 or BF16\), found I32/);
    await expect(inspectHfFolder(folder(good, tensors((m) => m.set('model.layers.0.self_attn.q_proj.weight', { shape: [32, 16], data: new Float32Array(512) }))))).rejects.toThrow(/tensor 'model\.layers\.0\.self_attn\.q_proj\.weight': expected shape \[32, 32\], found \[32, 16\]/);
    const sharded = hfFolderFiles(CFG, seededRows(CFG, 7), { dtype: 'BF16', maxShardBytes: 20_000 }).filter((f) => !f.name.includes('00002'));
    await expect(inspectHfFolder(blobs(sharded))).rejects.toThrow(/names the shard model-00002-of-00004\.safetensors, which is not in/);
    await expect(inspectHfFolder(new BlobFileSource([['config.json', new Blob([good])]], 'x'))).rejects.toThrow(/no model\.safetensors or model\.safetensors\.index\.json in x/);
  });
});

/** A fake server for `files`: Range requests, and weight-file bodies that error before their end (after at most `breakAfter` bytes) on the first `breaks` responses. */
function fakeServer(files: FolderFile[], opts: { breaks: number; breakAfter: number; ranges: boolean }): typeof fetch & { rangeRequests: number } {
  const data = new Map(files.map((f) => [f.name, bytesOf(f)]));
  let broken = 0;
  const server = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const name = String(input).split('/').pop()!;
    const bytes = data.get(name);
    if (!bytes) return new Response('not found', { status: 404, statusText: 'Not Found' });
    if (init?.method === 'HEAD') return new Response(null, { status: 200, headers: { 'content-length': String(bytes.byteLength) } });
    const range = new Headers(init?.headers).get('range');
    if (range) server.rangeRequests++;
    const start = range && opts.ranges ? Number(/bytes=(\d+)-/.exec(range)![1]) : 0;
    const body = bytes.subarray(start);
    const fail = name.endsWith('.safetensors') && broken < opts.breaks;
    if (fail) broken++;
    const cut = fail ? Math.min(opts.breakAfter, body.byteLength - 1) : body.byteLength;
    let at = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(c) { // chunk by chunk, so the bytes before a break are delivered first
        if (at < cut) {
          c.enqueue(body.slice(at, Math.min(cut, at + 1000)));
          at += 1000;
        } else if (fail) c.error(new TypeError('network error'));
        else c.close();
      },
    });
    return new Response(stream, { status: range && opts.ranges ? 206 : 200 });
  }) as typeof fetch & { rangeRequests: number };
  server.rangeRequests = 0;
  return server;
}

describe('HF folder from a URL (llvmpipe)', () => {
  const files = hfFolderFiles(CFG, seededRows(CFG, 8), { dtype: 'BF16', maxShardBytes: 20_000 });

  const base = 'https://models.test/qwen/';
  const inspect = () => inspectHfFolder(new UrlFileSource(base, { fetch: fakeServer(files, { breaks: 0, breakAfter: 0, ranges: true }) }));

  it('resumes a download that breaks halfway with a Range request; the weights are exact', async () => {
    const rt = await testRuntime('opengles');
    const server = fakeServer(files, { breaks: 3, breakAfter: 12_345, ranges: true });
    const w = await loadHfWeights(rt, new UrlFileSource(base, { fetch: server }), await inspect());
    expect(server.rangeRequests).toBe(3); // two breaks in the first file (once resumed), one in the second
    expect(await w.download()).toEqual(expectedValues(CFG, 8, bf16));
    w.destroy();
  });

  it('says so when the server cannot resume, or the connection keeps failing', async () => {
    const rt = await testRuntime('opengles');
    const noRange = new UrlFileSource(base, { fetch: fakeServer(files, { breaks: 4, breakAfter: 12_345, ranges: false }) });
    await expect(loadHfWeights(rt, noRange, await inspect())).rejects.toThrow(/broke off at byte 12345, and the server does not resume \(it answered HTTP 200 to a Range request\)/);
    const flaky = new UrlFileSource(base, { fetch: fakeServer(files, { breaks: 100, breakAfter: 12_345, ranges: true }), retries: 2 });
    await expect(loadHfWeights(rt, flaky, await inspect())).rejects.toThrow(/failed 3 times \(last at byte \d+: network error\): check your connection/);
    const missing = new UrlFileSource('https://models.test/none/', { fetch: fakeServer([], { breaks: 0, breakAfter: 0, ranges: true }) });
    await expect(inspectHfFolder(missing)).rejects.toThrow(/no config\.json in https:\/\/models\.test\/none\//);
  });
});
