import { describe, expect, it } from 'vitest';
import { initReferenceParameters, referenceForward } from '../reference';
import { ByteTokenizer } from '../tokenizer/byteTokenizer';
import { tokenizerForModel } from '../tokenizer/tokenizerForModel';
import { CHAT_SPECIAL_TOKENS } from '../tokenizer/types';
import { Rng } from '../util/rng';
import type { ModelParams } from './checkpointIO';
import { type ModelConfig, PRESETS } from './config';
import { transferVocabulary } from './vocabTransfer';

const byteTok = new ByteTokenizer();
const targetCfg = PRESETS['nano-q'];
const qTok = await tokenizerForModel(targetCfg);
const C = PRESETS.nano.hiddenSize;

/** Fresh random nano weights (float32 of the float64 reference init, so both forwards read the same values). */
function randomNano(seed: number): ModelParams {
  const ref = initReferenceParameters(PRESETS.nano, new Rng(seed));
  // the reference init gives every norm weight 1: perturb them so a norm copied wrongly would show
  const rng = new Rng(seed + 1);
  return new Map([...ref].map(([name, w]) => [name, Float32Array.from(w, (v) => (w.length === C || w.length === PRESETS.nano.headDim ? v + rng.normal(0, 0.1) : v))]));
}

const toRef = (p: ModelParams) => new Map([...p].map(([k, v]) => [k, Float64Array.from(v)]));
const rowOf = (w: Float32Array, id: number) => Array.from(w.subarray(id * C, (id + 1) * C));

/** The target id of each byte's single-byte token. */
function byteIds(): Map<number, number> {
  const out = new Map<number, number>();
  for (let id = 0; id < qTok.vocabSize; id++) {
    const b = qTok.tokenBytes(id);
    if (b.length === 1 && !Object.values(qTok.specialTokens).includes(id)) out.set(b[0], id);
  }
  return out;
}

describe('vocabulary transfer: byte-level nano → nano-q (trimmed Qwen3 ids)', () => {
  const params = randomNano(11);
  const { params: moved, stats } = transferVocabulary({ cfg: PRESETS.nano, params, tokenizer: byteTok }, targetCfg, qTok);
  const src = params.get('model.embed_tokens.weight')!;
  const dst = moved.get('model.embed_tokens.weight')!;

  it('makes every target row from the source rows of the same bytes or special', () => {
    expect(dst.length).toBe(targetCfg.vocabSize * C);
    expect(stats.specials).toBe(CHAT_SPECIAL_TOKENS.length);
    expect(stats.singleBytes).toBe(256);
    expect(stats.specials + stats.singleBytes + stats.multiByte + stats.padding).toBe(targetCfg.vocabSize);
    expect(stats.multiByte).toBeGreaterThan(5000);
    for (const s of CHAT_SPECIAL_TOKENS) expect(rowOf(dst, qTok.specialTokens[s]), s).toEqual(rowOf(src, byteTok.specialTokens[s]));
    for (const [b, id] of byteIds()) expect(rowOf(dst, id), `byte ${b}`).toEqual(rowOf(src, b));
    // a multi-byte token: the mean of its bytes' rows, worked out here
    for (const word of [' weather', 'order', '@example']) {
      const ids = qTok.encode(word);
      const id = ids.find((i) => qTok.tokenBytes(i).length > 2)!;
      const bytes = [...qTok.tokenBytes(id)];
      const want = Array.from({ length: C }, (_, c) => bytes.reduce((a, b) => a + src[b * C + c], 0) / bytes.length);
      rowOf(dst, id).forEach((v, c) => expect(v).toBeCloseTo(want[c], 6));
    }
    // padding rows: the mean of the source's padding rows (272 − 265 = 7 of them)
    const pads = [265, 266, 267, 268, 269, 270, 271];
    const padWant = Array.from({ length: C }, (_, c) => pads.reduce((a, p) => a + src[p * C + c], 0) / pads.length);
    rowOf(dst, targetCfg.vocabSize - 1).forEach((v, c) => expect(v).toBeCloseTo(padWant[c], 6));
  });

  it('copies every other tensor unchanged (and does not share the source arrays)', () => {
    expect([...moved.keys()].sort()).toEqual([...params.keys()].sort());
    for (const [name, w] of params) {
      if (name === 'model.embed_tokens.weight') continue;
      expect(Array.from(moved.get(name)!), name).toEqual(Array.from(w));
      expect(moved.get(name)).not.toBe(w);
    }
  });

  it('a conversation written in the target ids byte by byte gives the source model\'s hidden states: same logits on every byte and special', () => {
    const text = '<|im_start|>user\nWhat is the weather in Zyzzyva?<|im_end|>\n<|im_start|>assistant\n<tool_call>\n{"name": "weather"';
    const srcIds = byteTok.encode(text);
    const toTarget = byteIds();
    const specialTarget = new Map(CHAT_SPECIAL_TOKENS.map((s) => [byteTok.specialTokens[s], qTok.specialTokens[s]]));
    const dstIds = srcIds.map((i) => (i < 256 ? toTarget.get(i)! : specialTarget.get(i)!));
    expect(qTok.decode(dstIds)).toBe(text);
    const T = srcIds.length;
    const a = referenceForward(PRESETS.nano, toRef(params), Int32Array.from(srcIds), 1, T).logits; // (T, 272)
    const b = referenceForward(targetCfg, toRef(moved), Int32Array.from(dstIds), 1, T).logits; // (T, 5928)
    const Vs = PRESETS.nano.vocabSize;
    const Vt = targetCfg.vocabSize;
    let worst = 0;
    for (let t = 0; t < T; t++) {
      for (let i = 0; i < 256 + CHAT_SPECIAL_TOKENS.length; i++) {
        const j = i < 256 ? toTarget.get(i)! : specialTarget.get(i)!;
        worst = Math.max(worst, Math.abs(a[t * Vs + i] - b[t * Vt + j]));
      }
    }
    expect(worst).toBeLessThan(1e-12);
  });

  it('refuses a source that is not byte-level, other layer shapes, and a tokenizer of another vocabulary', () => {
    expect(() => transferVocabulary({ cfg: targetCfg, params: moved, tokenizer: qTok }, targetCfg, qTok)).toThrow(/must be byte-level/);
    expect(() => transferVocabulary({ cfg: PRESETS.nano, params, tokenizer: byteTok }, PRESETS['tiny-q'], qTok)).toThrow(/differs from the source in hiddenSize/);
    const wrongRows: ModelConfig = { ...targetCfg, vocabSize: targetCfg.vocabSize + 8 };
    expect(() => transferVocabulary({ cfg: PRESETS.nano, params, tokenizer: byteTok }, wrongRows, qTok)).toThrow(/is not the target config's/);
  });
});
