// A checkpoint of a trimmed-Qwen3 model records its tokenizer identity, including the kept-id list,
// and is refused under a different list of the same size; byte and Qwen3 fingerprints are unchanged.
import { describe, expect, it } from 'vitest';
import { ByteTokenizer } from '../tokenizer/byteTokenizer';
import { loadTrimmedQwen3Tokenizer } from '../tokenizer/tokenizerForModel';
import { openCheckpoint, saveCheckpoint } from './checkpoint';
import { sha256Hex, tokenizerIdentity } from './format';
import { MemoryBackend } from './memoryBackend';

/** The kept-id list with one id moved to a neighbouring Qwen3 id: another list, same size and specials. */
function anotherList(ids: Int32Array): Int32Array {
  const other = Int32Array.from(ids);
  other[1000] += other[1000] + 1 === other[1001] ? -1 : 1;
  return other;
}

describe('tokenizer identity of a trimmed Qwen3 vocabulary', () => {
  it('fingerprints the kept-id list; byte fingerprints are as before (specials only)', async () => {
    const tok = await loadTrimmedQwen3Tokenizer();
    const id = await tokenizerIdentity(tok);
    expect(id).toMatchObject({ kind: 'qwen3-trimmed', vocabSize: tok.vocabSize });
    const otherId = await tokenizerIdentity({ kind: tok.kind, vocabSize: tok.vocabSize, specialTokens: tok.specialTokens, qwen3Ids: anotherList(tok.qwen3Ids) });
    expect(otherId.fingerprint).not.toBe(id.fingerprint);

    const byte = new ByteTokenizer();
    const specials = Object.entries(byte.specialTokens).sort(([a], [b]) => (a < b ? -1 : 1));
    const old = await sha256Hex(new TextEncoder().encode(JSON.stringify({ kind: 'byte', vocabSize: byte.vocabSize, specials })));
    expect((await tokenizerIdentity(byte)).fingerprint).toBe(old);
  });

  it('a checkpoint saved with one kept-id list opens with it and is refused with another', async () => {
    const tok = await loadTrimmedQwen3Tokenizer();
    const identity = await tokenizerIdentity(tok);
    const store = new MemoryBackend();
    await saveCheckpoint(store, {
      preset: 'nano-q', model: { vocabSize: tok.vocabSize }, tokenizer: identity, lora: null, pipelineConfig: {}, policyVersion: 0,
      training: { stage: 'sft', step: 1, seed: 1, optimizerStep: null, rng: {}, cursors: {} }, validation: null, metrics: [],
      tensors: [{ group: 'model', name: 'w', shape: [2], data: Float32Array.of(1, 2) }],
    }, { id: 'q' });
    const r = await openCheckpoint(store, 'q', { preset: 'nano-q', tokenizer: identity });
    expect(r.manifest.tokenizer).toEqual(identity);
    const otherId = await tokenizerIdentity({ kind: tok.kind, vocabSize: tok.vocabSize, specialTokens: tok.specialTokens, qwen3Ids: anotherList(tok.qwen3Ids) });
    await expect(openCheckpoint(store, 'q', { preset: 'nano-q', tokenizer: otherId })).rejects.toThrow(/does not fit this run/);
  });
});
