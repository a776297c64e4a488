// SFT with shared openings (sharePrefix: one system block per row, conversations as branches) trains
// exactly what separate rows train: the same loss at every step and the same weights after, on
// conversations that share their system block and on a mix of two system blocks.
import { describe, expect, it } from 'vitest';
import type { EncodedDoc } from '../../data/packing';
import { testRuntime } from '../../gpu/testDevice';
import { GpuWeights, initialWeights } from '../../model/weights';
import { ByteTokenizer, encodeConversation } from '../../tokenizer';
import { MICRO_MODEL } from '../testing/microModel';
import { DEFAULT_SFT, sharedOpeningRows, trainSft } from './sft';

const tok = new ByteTokenizer();

function doc(system: string, user: string, answer: string): EncodedDoc {
  const seq = encodeConversation(tok, [{ role: 'system', content: system }, { role: 'user', content: user }, { role: 'assistant', content: answer }], []);
  return { ids: seq.ids, mask: seq.assistantMask };
}

const SYS_A = 'Call the right tool.\nTools:\nweather(city): sky\ntime(city): clock';
const SYS_B = 'Answer briefly.';
const DOCS = [
  doc(SYS_A, 'weather in Oslo?', '<tool_call>{"name": "weather"}</tool_call>'),
  doc(SYS_A, 'time in Lima', '<tool_call>{"name": "time"}</tool_call>'),
  doc(SYS_B, 'hi', 'hello'),
  doc(SYS_A, 'is it sunny in Rome', '<tool_call>{"name": "weather"}</tool_call>'),
  doc(SYS_B, 'thanks', 'you are welcome'),
];

describe('SFT shared openings', () => {
  it('holds each system block once per row', () => {
    const rows = sharedOpeningRows(DOCS, 256, tok.padId);
    const used = rows.reduce((a, r) => a + r.segments.filter((s) => s >= 0).length, 0);
    const separate = DOCS.reduce((a, d) => a + d.ids.length, 0);
    expect(used).toBeLessThan(separate);
    const scored = (rs: typeof rows) => rs.reduce((a, r) => a + r.mask.reduce((x, m) => x + m, 0), 0);
    expect(scored(rows)).toBe(DOCS.reduce((a, d) => a + d.mask.slice(1).reduce((x, m) => x + m, 0), 0));
  });

  it('gives the same losses and weights as separate rows', async () => {
    const rt = await testRuntime('opengles');
    const run = async (sharePrefix: boolean) => {
      const w = new GpuWeights(rt, MICRO_MODEL, initialWeights(MICRO_MODEL, 4));
      // one batch holds every conversation either way, so both see the same data per step
      const hist = await trainSft(rt, w, { train: DOCS, padId: tok.padId }, { ...DEFAULT_SFT, batchSize: sharePrefix ? 2 : 5, seqLen: 256, steps: 3, lr: 1e-2, warmupSteps: 0, pack: false, sharePrefix });
      const params = await w.download();
      w.destroy();
      return { losses: hist.map((m) => m.loss), params };
    };
    const plain = await run(false);
    const shared = await run(true);
    for (let i = 0; i < 3; i++) expect(shared.losses[i]).toBeCloseTo(plain.losses[i], 5);
    for (const [name, v] of plain.params) {
      const s = shared.params.get(name)!;
      let maxDiff = 0;
      let maxAbs = 0;
      for (let i = 0; i < v.length; i++) {
        maxDiff = Math.max(maxDiff, Math.abs(v[i] - s[i]));
        maxAbs = Math.max(maxAbs, Math.abs(v[i]));
      }
      expect(maxDiff / maxAbs, name).toBeLessThan(1e-4);
    }
  }, 120_000);
});
