// Rank 0's checkpoint sent to the other machines' stores (checkpointShare.ts), 3 ranks on a memory
// hub: each copy opens and reads back rank 0's tensors bit for bit; a chunk altered on the way is
// refused naming it, and nothing of the copy stays in that rank's store.
import { describe, expect, it } from 'vitest';
import { openCheckpoint, saveCheckpoint } from '../storage/checkpoint';
import { tokenizerIdentity } from '../storage/format';
import { MemoryBackend } from '../storage/memoryBackend';
import { Rng } from '../util/rng';
import { shareCheckpoint } from './checkpointShare';
import { memoryRanks } from './testRanks';

async function savedStore(): Promise<{ store: MemoryBackend; weights: Float32Array }> {
  const rng = new Rng(5);
  const weights = Float32Array.from({ length: 3000 }, () => rng.normal());
  const store = new MemoryBackend();
  await saveCheckpoint(store, {
    preset: 'nano', model: { hiddenSize: 96 }, tokenizer: await tokenizerIdentity({ kind: 'byte', vocabSize: 272, specialTokens: { '<|im_end|>': 258 } }),
    policyVersion: 4, training: { stage: 'sft', step: 4, seed: 7, optimizerStep: 4, rng: { rows: rng.saveState() }, cursors: { row: 3 } },
    metrics: [{ step: 1, loss: 2 }],
    tensors: [
      { group: 'model', name: 'w', shape: [3000], data: weights },
      { group: 'adam.m', name: 'w', shape: [3000], data: weights.map((x) => x / 3) },
    ],
  }, { id: 'sft-4', chunkBytes: 1000 }); // 12 chunks a tensor
  return { store, weights };
}

describe('checkpoint share', () => {
  it('3 ranks: the other two stores get rank 0\'s checkpoint, which opens and reads back bit for bit', async () => {
    const { store, weights } = await savedStore();
    const { nodes, collectives } = await memoryRanks(3, 'dp-checkpoint');
    const stores = [store, new MemoryBackend(), new MemoryBackend()];
    const stats = await Promise.all(collectives.map((c, r) => shareCheckpoint(c, stores[r], 'sft-4')));
    expect(stats[1].chunks).toBe(25); // 12 + 12 tensor chunks and the metrics blob
    expect(stats[0].bytes).toBe(2 * stats[1].bytes); // rank 0 sent each chunk to 2 ranks
    for (const s of stores.slice(1)) {
      expect((await s.list()).complete).toEqual(['sft-4']);
      const r = await openCheckpoint(s, 'sft-4', { preset: 'nano' });
      expect(await r.tensor('model', 'w')).toEqual(weights);
      expect(r.manifest.training.step).toBe(4);
    }
    for (const n of nodes) await n.stop();
  });

  it('a chunk altered on the way is refused naming it; the receiving store keeps nothing of the copy', async () => {
    const { store } = await savedStore();
    const altered = Object.create(store) as MemoryBackend;
    altered.getChunk = async (id, seq) => {
      const b = (await store.getChunk(id, seq)).slice();
      if (seq === 5) b[17] ^= 1;
      return b;
    };
    const { nodes, collectives } = await memoryRanks(2, 'dp-checkpoint');
    const receiver = new MemoryBackend();
    const sending = shareCheckpoint(collectives[0], altered, 'sft-4');
    await expect(shareCheckpoint(collectives[1], receiver, 'sft-4')).rejects.toThrow(/checkpoint 'sft-4' from rank 0: chunk 6 of 25 \(seq 5\) arrived with 1000 bytes that do not match the manifest's checksum/);
    await nodes[1].stop('its copy failed'); // as session.ts does: the sender stops at once instead of waiting out its timeout
    await expect(sending).rejects.toThrow(/rank 1 \(rank-1\) left \(said bye: its copy failed\)/);
    expect(await receiver.list()).toEqual({ complete: [], unfinished: [] });
    for (const n of nodes) await n.stop();
  });
});
