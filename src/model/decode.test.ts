// Incremental decoding with the KV cache gives the same logits as the full training forward
// (≤ 1e-4 relative), for rows of different lengths decoded together; plus sampling behaviour.
import { describe, expect, it } from 'vitest';
import { TEST_ADAPTERS, testRuntime } from '../gpu/testDevice';
import { relativeError } from '../reference/ops/finiteDiff';
import { Rng } from '../util/rng';
import { planActivations, releaseActivations } from './activations';
import type { ModelConfig } from './config';
import { Decoder } from './decode';
import { modelForward, writeBatch } from './forward';
import { generate } from './generate';
import { parameterTable } from './parameters';
import { logSoftmax, sampleToken } from './sampling';
import { GpuWeights } from './weights';

const TOL = 1e-4;
const CFG: ModelConfig = {
  vocabSize: 37, hiddenSize: 16, intermediateSize: 24, numLayers: 2, numHeads: 4, numKvHeads: 2, headDim: 8,
  rmsNormEps: 1e-6, ropeTheta: 10000, maxPositionEmbeddings: 64, tieWordEmbeddings: true, tokenizer: 'byte',
};

function weights(rng: Rng): Map<string, Float32Array> {
  return new Map(parameterTable(CFG).map((p) => {
    const n = p.shape.reduce((a, b) => a * b, 1);
    return [p.name, Float32Array.from({ length: n }, () => (p.kind === 'norm' ? 1 + rng.normal(0, 0.1) : rng.normal(0, 0.3)))];
  }));
}

describe.each(TEST_ADAPTERS)('KV-cache decoding on %s', (adapter) => {
  it(`incremental logits equal the full forward's, rows of different lengths, rel err ≤ ${TOL}`, async () => {
    const rt = await testRuntime(adapter);
    const rng = new Rng(11);
    const w = new GpuWeights(rt, CFG, weights(rng));
    const seqs = [9, 6].map((L) => Array.from({ length: L }, () => rng.int(0, CFG.vocabSize - 1)));
    // Full-forward logits of each sequence on its own (B = 1).
    const full: Float32Array[] = [];
    for (const s of seqs) {
      const acts = planActivations(rt, CFG, 1, s.length);
      writeBatch(rt, w, acts, { inputIds: Int32Array.from(s) });
      modelForward(rt, w, acts);
      full.push(await rt.readF32(acts.logits));
      releaseActivations(rt, acts);
    }
    const V = CFG.vocabSize;
    const prompt = [4, 2]; // prompt lengths of the two rows
    const dec = new Decoder(rt, w, 2, 16);
    const padded = new Int32Array(2 * 4);
    seqs.forEach((s, b) => padded.set(s.slice(0, prompt[b]), b * 4));
    let logits = await dec.forward(padded, Int32Array.from([0, 0]), Int32Array.from(prompt, (p) => p - 1));
    const pos = [...prompt];
    for (let step = 0; step < 4; step++) {
      for (let b = 0; b < 2; b++) {
        const at = pos[b] - 1; // logits predict the token after position `at`
        expect(relativeError(logits.subarray(b * V, (b + 1) * V), full[b].subarray(at * V, (at + 1) * V)), `row ${b} position ${at}`).toBeLessThanOrEqual(TOL);
      }
      const next = Int32Array.from([0, 1], (b) => seqs[b][pos[b]]);
      logits = await dec.forward(next, Int32Array.from(pos), Int32Array.from([0, 0]));
      pos[0]++;
      pos[1]++;
    }
    dec.destroy();
    w.destroy();
  });

  it('generate: greedy is deterministic, stops on a stop id, and records log-probs', async () => {
    const rt = await testRuntime(adapter);
    const w = new GpuWeights(rt, CFG, weights(new Rng(5)));
    const opts = { temperature: 0, topK: 0, topP: 1, maxNewTokens: 6, stopIds: [] as number[], seed: 1 };
    const a = await generate(rt, w, [[1, 2, 3], [4]], opts);
    const b = await generate(rt, w, [[1, 2, 3], [4]], opts);
    expect(a).toEqual(b);
    expect(a[0].tokens).toHaveLength(6);
    expect(a[0].finishReason).toBe('length');
    expect(a[0].logprobs.every((l) => l <= 0 && Number.isFinite(l))).toBe(true);
    const stopAt = a[1].tokens[2];
    const c = await generate(rt, w, [[1, 2, 3], [4]], { ...opts, stopIds: [stopAt] });
    expect(c[1].tokens).toEqual(a[1].tokens.slice(0, a[1].tokens.indexOf(stopAt) + 1));
    expect(c[1].finishReason).toBe('stop');
    w.destroy();
  });
  it('generate: identical prompts are prefilled once; a prefill in chunks; sampling equals a prefill of every row at once (logprobs ≤ 1e-5)', async () => {
    const rt = await testRuntime(adapter);
    const w = new GpuWeights(rt, CFG, weights(new Rng(6)));
    const prompts = [[1, 2, 3], [4], [1, 2, 3], [5, 6], [1, 2, 3], [4]];
    const opts = { temperature: 1, topK: 0, topP: 1, maxNewTokens: 5, stopIds: [] as number[], seed: 3 };
    const shared = await generate(rt, w, prompts, opts);
    const full = await generate(rt, w, prompts, { ...opts, sharePrefill: false });
    expect(shared.map((g) => g.tokens)).toEqual(full.map((g) => g.tokens));
    shared.forEach((g, b) => g.logprobs.forEach((l, i) => expect(Math.abs(l - full[b].logprobs[i])).toBeLessThanOrEqual(1e-5)));
    expect(new Set(shared.map((g) => g.tokens.join())).size).toBeGreaterThan(1); // rows sample on their own after the shared prefill
    // prompts fed 2 tokens per prefill call (rows of lengths 3, 1, 2: their last tokens in different chunks)
    const chunked = await generate(rt, w, prompts, { ...opts, prefillChunk: 2 });
    expect(chunked.map((g) => g.tokens)).toEqual(full.map((g) => g.tokens));
    chunked.forEach((g, b) => g.logprobs.forEach((l, i) => expect(Math.abs(l - full[b].logprobs[i])).toBeLessThanOrEqual(1e-5)));
    w.destroy();
  });
});

describe('sampling', () => {
  const logits = Float32Array.from([2, 1, 0.5, -1, 3]);
  it('greedy picks the argmax; top-k 1 equals greedy at any temperature', () => {
    expect(sampleToken(logits, { temperature: 0, topK: 0, topP: 1 }, new Rng(1)).token).toBe(4);
    for (let s = 0; s < 20; s++) expect(sampleToken(logits, { temperature: 2, topK: 1, topP: 1 }, new Rng(s)).token).toBe(4);
  });
  it('top-p keeps only the nucleus; frequencies follow the tempered softmax; seeded', () => {
    const rng = new Rng(3);
    const counts = new Array(5).fill(0);
    for (let i = 0; i < 4000; i++) counts[sampleToken(logits, { temperature: 1, topK: 0, topP: 1 }, rng).token]++;
    const p = logSoftmax(logits, 1).map(Math.exp);
    counts.forEach((c, i) => expect(Math.abs(c / 4000 - p[i])).toBeLessThan(0.03));
    for (let s = 0; s < 50; s++) expect([4, 0]).toContain(sampleToken(logits, { temperature: 1, topK: 0, topP: 0.8 }, new Rng(s)).token);
    expect(sampleToken(logits, { temperature: 1, topK: 0, topP: 1 }, new Rng(9))).toEqual(sampleToken(logits, { temperature: 1, topK: 0, topP: 1 }, new Rng(9)));
  });
});
