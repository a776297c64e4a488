// The exported ONNX decoder, run by onnxruntime-web's wasm EP in Node, against our GPU forward
// (src/model/forward.ts): logits within 1e-3 relative (max|a − b| / max|b|) for nano and tiny, with
// and without attention_mask / position_ids, and the KV-cache variant step by step.
import * as ort from 'onnxruntime-web';
import { beforeAll, describe, expect, it } from 'vitest';
import { testRuntime } from '../../../gpu/testDevice';
import type { GpuRuntime } from '../../../gpu/runtime';
import { planActivations, releaseActivations } from '../../../model/activations';
import { type ModelConfig, PRESETS } from '../../../model/config';
import { modelForward, writeBatch } from '../../../model/forward';
import { GpuWeights, initialWeights } from '../../../model/weights';
import { Rng } from '../../../util/rng';
import { decoderOnnx, decoderOnnxFiles } from './decoderOnnx';
import { decodeModel } from './onnxProto';

let rt: GpuRuntime;
beforeAll(async () => {
  rt = await testRuntime();
  ort.env.wasm.numThreads = 1;
});

/** Seeded weights with non-trivial norms (1 ± 0.5) so every weight's place in the graph matters. */
function weights(cfg: ModelConfig, seed: number): Map<string, Float32Array> {
  const w = initialWeights(cfg, seed);
  const rng = new Rng(seed + 1);
  for (const [name, v] of w) if (name.endsWith('norm.weight')) v.forEach((_, i) => (v[i] = 1 + rng.uniform(-0.5, 0.5)));
  return w;
}

/** Our logits (B, T, V) from the GPU training forward. */
async function ourLogits(cfg: ModelConfig, params: Map<string, Float32Array>, ids: Int32Array, B: number, T: number, positions?: Int32Array): Promise<Float32Array> {
  const w = new GpuWeights(rt, cfg, params);
  const acts = planActivations(rt, cfg, B, T);
  try {
    writeBatch(rt, w, acts, { inputIds: ids, positions });
    modelForward(rt, w, acts);
    return await rt.readF32(acts.logits);
  } finally {
    releaseActivations(rt, acts);
    w.destroy();
  }
}

function relErr(a: Float32Array, b: Float32Array): number {
  let num = 0;
  let den = 0;
  for (let i = 0; i < b.length; i++) {
    num = Math.max(num, Math.abs(a[i] - b[i]));
    den = Math.max(den, Math.abs(b[i]));
  }
  return num / den;
}

const i64 = (a: ArrayLike<number>, dims: number[]) => new ort.Tensor('int64', BigInt64Array.from(Array.from(a, BigInt)), dims);
const randomIds = (rng: Rng, n: number, V: number) => Int32Array.from({ length: n }, () => rng.int(0, V - 1));

describe.each(['nano', 'tiny'] as const)('ONNX decoder (%s) in onnxruntime-web (wasm)', (preset) => {
  const cfg = PRESETS[preset];
  const params = weights(cfg, 11);

  it('input_ids only: logits match our forward within 1e-3', async () => {
    const B = 2;
    const T = 7;
    const ids = randomIds(new Rng(1), B * T, cfg.vocabSize);
    const session = await ort.InferenceSession.create(decoderOnnx(cfg, params), { executionProviders: ['wasm'] });
    expect(session.inputNames).toEqual(['input_ids']);
    const out = await session.run({ input_ids: i64(ids, [B, T]) });
    expect(out.logits.dims).toEqual([B, T, cfg.vocabSize]);
    const err = relErr(out.logits.data as Float32Array, await ourLogits(cfg, params, ids, B, T));
    expect(err).toBeLessThan(1e-3);
    await session.release();
  });

  it('attention_mask and position_ids: a left-padded row equals the unpadded one', async () => {
    const T = 6;
    const pad = 2;
    const ids = randomIds(new Rng(2), T, cfg.vocabSize);
    const session = await ort.InferenceSession.create(decoderOnnx(cfg, params, { attentionMask: true, positionIds: true }), { executionProviders: ['wasm'] });
    expect(session.inputNames).toEqual(['input_ids', 'attention_mask', 'position_ids']);
    const padded = [...Array(pad).fill(0), ...ids];
    const out = await session.run({
      input_ids: i64(padded, [1, T + pad]),
      attention_mask: i64([...Array(pad).fill(0), ...Array(T).fill(1)], [1, T + pad]),
      position_ids: i64([...Array(pad).fill(0), ...Array.from({ length: T }, (_, i) => i)], [1, T + pad]),
    });
    const got = (out.logits.data as Float32Array).slice(pad * cfg.vocabSize);
    expect(relErr(got, await ourLogits(cfg, params, ids, 1, T))).toBeLessThan(1e-3);
    await session.release();
  });

  it('KV-cache variant: prefill then one token at a time equals the full forward', async () => {
    const T = 6;
    const ids = randomIds(new Rng(3), T, cfg.vocabSize);
    const session = await ort.InferenceSession.create(decoderOnnx(cfg, params, { kvCache: true, attentionMask: true }), { executionProviders: ['wasm'] });
    const want = await ourLogits(cfg, params, ids, 1, T);
    const { numLayers: L, numKvHeads: Hkv, headDim: D, vocabSize: V } = cfg;
    let pastState: Record<string, ort.Tensor> = {};
    for (let l = 0; l < L; l++) {
      pastState[`past_key_values.${l}.key`] = new ort.Tensor('float32', new Float32Array(0), [1, Hkv, 0, D]);
      pastState[`past_key_values.${l}.value`] = new ort.Tensor('float32', new Float32Array(0), [1, Hkv, 0, D]);
    }
    const got = new Float32Array(T * V);
    const steps = [[0, 4], [4, 5], [5, 6]]; // prefill 4 tokens, then 1 + 1
    for (const [a, b] of steps) {
      const out = await session.run({ input_ids: i64(ids.slice(a, b), [1, b - a]), attention_mask: i64(Array(b).fill(1), [1, b]), ...pastState });
      got.set(out.logits.data as Float32Array, a * V);
      pastState = {};
      for (let l = 0; l < L; l++) {
        expect(out[`present.${l}.key`].dims).toEqual([1, Hkv, b, D]);
        pastState[`past_key_values.${l}.key`] = out[`present.${l}.key`];
        pastState[`past_key_values.${l}.value`] = out[`present.${l}.value`];
      }
    }
    expect(relErr(got, want)).toBeLessThan(1e-3);
    await session.release();
  });
});

describe('ONNX external data (weights beside the model: protobuf caps a message at 2 GiB)', () => {
  const cfg = PRESETS.nano;
  const params = weights(cfg, 5);
  const concat = (parts: Uint8Array[]) => {
    const out = new Uint8Array(parts.reduce((a, p) => a + p.byteLength, 0));
    let o = 0;
    for (const p of parts) { out.set(p, o); o += p.byteLength; }
    return out;
  };

  it('writes every weight matrix to the data file at page-aligned offsets, and ORT gives the same logits as inline', async () => {
    const files = decoderOnnxFiles(cfg, params, { externalData: true });
    expect(files.data?.path).toBe('model.onnx.data');
    const data = concat(files.data!.parts);
    expect(data.byteLength).toBe(files.data!.bytes);
    const graph = (decodeModel(files.model).graph as { initializer: { name: string; raw_data?: Uint8Array; data_location?: number; external_data?: { key: string; value: string }[] }[] });
    const ext = graph.initializer.filter((i) => i.data_location === 1);
    expect(ext.length).toBeGreaterThan(cfg.numLayers * 7); // q, k, v, o, gate, up, down per layer, the embedding, …
    for (const i of ext) {
      const kv = Object.fromEntries(i.external_data!.map((e) => [e.key, e.value]));
      expect(kv.location).toBe('model.onnx.data');
      expect(Number(kv.offset) % 4096).toBe(0);
      expect(i.raw_data === undefined || i.raw_data.byteLength === 0).toBe(true);
    }
    // the embedding's bytes are where the model says (the embedding is stored as is, not transposed)
    const emb = ext.find((i) => i.name === 'model.embed_tokens.weight')!;
    const at = Object.fromEntries(emb.external_data!.map((e) => [e.key, Number(e.value)]));
    expect(new Float32Array(data.slice(at.offset, at.offset + at.length).buffer)).toEqual(params.get('model.embed_tokens.weight'));
    const inline = decoderOnnx(cfg, params);
    expect(files.model.byteLength).toBeLessThan(inline.byteLength / 20);

    const ids = randomIds(new Rng(4), 5, cfg.vocabSize);
    const run = async (session: ort.InferenceSession) => {
      const out = await session.run({ input_ids: i64(ids, [1, 5]) });
      await session.release();
      return out.logits.data as Float32Array;
    };
    const fromExternal = await run(await ort.InferenceSession.create(files.model, { executionProviders: ['wasm'], externalData: [{ path: 'model.onnx.data', data }] }));
    const fromInline = await run(await ort.InferenceSession.create(inline, { executionProviders: ['wasm'] }));
    expect(fromExternal).toEqual(fromInline);
  });

  it("'auto' goes external only past the inline limit; inline past 2 GiB is refused with what to do", () => {
    expect(decoderOnnxFiles(cfg, params).data).toBeUndefined();
    expect(decoderOnnxFiles(cfg, params, { inlineLimitBytes: 1e5 }).data?.bytes).toBeGreaterThan(1e5);
    // a 2 GiB model without allocating one: the check reads byteLength only
    const huge = new Map(params);
    huge.set('model.embed_tokens.weight', { byteLength: 2 ** 31 } as unknown as Float32Array);
    expect(() => decoderOnnx(cfg, huge)).toThrow(/exceed protobuf's 2 GiB message limit inline; export with external data/);
    expect(() => decoderOnnxFiles(cfg, params, { externalData: true, dataFile: '../x.data' })).toThrow(/must be a plain file name/);
  });
});

describe('ONNX file', () => {
  it('is a protobuf ModelProto with opset 17 that decodes back to the graph we wrote', () => {
    const cfg = PRESETS.nano;
    const model = decodeModel(decoderOnnx(cfg, weights(cfg, 1)));
    expect(model.ir_version).toBe(8);
    expect(model.opset_import).toEqual([{ domain: '', version: 17 }]);
    const graph = model.graph as { input: { name: string }[]; output: { name: string }[]; initializer: { name: string }[] };
    expect(graph.input.map((i) => i.name)).toEqual(['input_ids']);
    expect(graph.output.map((o) => o.name)).toEqual(['logits']);
    expect(graph.initializer.some((i) => i.name === 'model.layers.3.mlp.down_proj.weight.T')).toBe(true);
  });
});
