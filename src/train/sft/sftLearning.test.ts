// Learning test (CPU adapter): nano SFT on 32 short multi-turn tool-calling conversations drives
// the assistant-token loss below 0.1, and greedy decoding then reproduces ≥ 90 % of the training
// tool calls exactly. Runs on the llvmpipe (OpenGL ES, compatibility) adapter: the fastest here.
import { describe, expect, it } from 'vitest';
import { routingToolChats } from '../../data/toolChats';
import { testRuntime } from '../../gpu/testDevice';
import { PRESETS } from '../../model/config';
import { generate } from '../../model/generate';
import { GpuWeights, initialWeights } from '../../model/weights';
import { ByteTokenizer, encodeConversation, encodePrompt, parseToolCalls, withCompactTools } from '../../tokenizer';
import { DEFAULT_SFT, trainSft } from './sft';

describe('SFT learning (nano, llvmpipe)', () => {
  it('drives assistant loss below 0.1; greedy decoding reproduces ≥ 90 % of the training tool calls exactly', async () => {
    const rt = await testRuntime('opengles');
    const tok = new ByteTokenizer();
    const cfg = PRESETS.nano;
    const chats = await routingToolChats(32, 3, 'train');
    const docs = chats.map((c) => {
      const { messages, tools } = withCompactTools(c.messages, c.tools);
      const seq = encodeConversation(tok, messages, tools);
      return { ids: seq.ids, mask: seq.assistantMask };
    });
    console.log(`conversation tokens: max ${Math.max(...docs.map((d) => d.ids.length))}, mean ${(docs.reduce((s, d) => s + d.ids.length, 0) / docs.length).toFixed(0)}`);
    const w = new GpuWeights(rt, cfg, initialWeights(cfg, 1));
    const t0 = performance.now();
    const history = await trainSft(rt, w, { train: docs, padId: tok.padId }, { ...DEFAULT_SFT, batchSize: 4, seqLen: 448, steps: 500, lr: 8e-3, warmupSteps: 10, pack: false }, (m) => {
      if (m.step % 10 === 0) console.log(`step ${m.step} loss ${m.loss.toFixed(4)} lr ${m.lr.toExponential(2)} |g| ${m.gradNorm.toFixed(3)} ${m.tokensPerSec.toFixed(0)} tok/s ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    });
    const final = history.slice(-8).reduce((s, m) => s + m.loss, 0) / 8;
    expect(final).toBeLessThan(0.1);

    // Greedy decoding from each training prompt reproduces the call.
    const prompts = chats.map((c) => {
      const { messages, tools } = withCompactTools(c.messages.slice(0, 2), c.tools);
      return encodePrompt(tok, messages, tools).ids;
    });
    const gens = await generate(rt, w, prompts, { temperature: 0, topK: 0, topP: 1, maxNewTokens: 80, stopIds: [tok.imEndId], seed: 1 });
    const calls = gens.map((g) => parseToolCalls(tok.decode(g.tokens).replace('<|im_end|>', '')).calls);
    const exact = calls.filter((c, i) => c.length === 1 && JSON.stringify(c[0]) === JSON.stringify(chats[i].call)).length;
    const rightTool = calls.filter((c, i) => c.length === 1 && c[0].name === chats[i].call.name).length;
    console.log(`tool calls: right tool ${rightTool}/${chats.length}, exactly right (tool and argument) ${exact}/${chats.length}`);
    for (let i = 0; i < 4; i++) console.log(`expected ${JSON.stringify(chats[i].call)} got ${JSON.stringify(tok.decode(gens[i].tokens))}`);
    // Measured on llvmpipe with the split-era routing chats (values from pools of ≥ 128, 8 phrasings
    // per tool): 32 conversations reach loss 0.003 at 500 steps (384 s alone); 64 only 0.05 with
    // 56/64 right tools, so the fixed set is 32.
    expect(rightTool / chats.length).toBeGreaterThanOrEqual(0.9);
    expect(exact / chats.length).toBeGreaterThanOrEqual(0.9);
    w.destroy();
  }, 1_800_000); // ≈ 12 min alone in the suite; 20 min was exceeded once when another learning run shared the 2 cores
});
