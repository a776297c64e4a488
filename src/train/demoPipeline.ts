// The main job of `npm run demo` and of the page's "Train" button, DOM-free so it runs in a Worker
// (and in Node): kernel self-check → SFT of a small preset on short multi-turn tool-calling
// conversations → held-out evaluation (greedy) → one sample conversation from the trained model.
// Progress events stream to the caller; every stage is seeded.
import type { GpuRuntime } from '../gpu/runtime';
import { routingToolChats, type ToolChat } from '../data/toolChats';
import { type ModelConfig, PRESETS, type PresetName } from '../model/config';
import { assertPresetFits } from '../model/fit';
import { generate } from '../model/generate';
import { GpuWeights, initialWeights } from '../model/weights';
import { runSelfCheck } from '../ops/selfCheck';
import { ByteTokenizer, encodeConversation, encodePrompt, parseToolCalls, withCompactTools } from '../tokenizer';
import { DEFAULT_SFT, type SftMetrics, trainSft } from './sft';

export interface DemoOptions {
  preset: PresetName;
  seed: number;
  /** SFT optimizer steps. */
  sftSteps: number;
  /** Training conversations. */
  trainConversations: number;
  /** Held-out tasks for evaluation. */
  evalTasks: number;
  batchSize: number;
  seqLen: number;
  lr: number;
  /** Skip the kernel self-check (it is also run by the e2e tests). */
  skipSelfCheck?: boolean;
}

export const DEFAULT_DEMO: DemoOptions = {
  preset: 'nano', seed: 1, sftSteps: 150, trainConversations: 64, evalTasks: 32, batchSize: 4, seqLen: 384, lr: 8e-3,
};

export type DemoEvent =
  | { kind: 'stage'; stage: string; detail?: string }
  | { kind: 'check'; name: string; ok: boolean; relErr: number }
  | { kind: 'sft'; metrics: SftMetrics; totalSteps: number }
  | { kind: 'eval'; label: string; success: number; total: number }
  | { kind: 'sample'; text: string }
  | { kind: 'done'; summary: DemoSummary };

export interface DemoSummary {
  preset: PresetName;
  parameters: number;
  selfCheckFailures: number;
  firstLoss: number;
  finalLoss: number;
  heldoutSuccessBefore: number;
  heldoutSuccessAfter: number;
  seconds: number;
}

const tok = new ByteTokenizer();

function toDoc(c: ToolChat) {
  const { messages, tools } = withCompactTools(c.messages, c.tools);
  const seq = encodeConversation(tok, messages, tools);
  return { ids: seq.ids, mask: seq.assistantMask };
}

function promptOf(c: ToolChat): number[] {
  const { messages, tools } = withCompactTools(c.messages.slice(0, 2), c.tools);
  return encodePrompt(tok, messages, tools).ids;
}

/** Share of chats whose greedy first assistant turn makes exactly the expected call. */
export async function toolCallAccuracy(rt: GpuRuntime, w: GpuWeights, chats: ToolChat[], seed: number): Promise<{ correct: number; texts: string[] }> {
  const gens = await generate(rt, w, chats.map(promptOf), { temperature: 0, topK: 0, topP: 1, maxNewTokens: 64, stopIds: [tok.imEndId], seed });
  const texts = gens.map((g) => tok.decode(g.tokens));
  const correct = texts.filter((t, i) => {
    const calls = parseToolCalls(t.replace('<|im_end|>', '')).calls;
    return calls.length === 1 && JSON.stringify(calls[0]) === JSON.stringify(chats[i].call);
  }).length;
  return { correct, texts };
}

export async function runDemo(rt: GpuRuntime, opts: DemoOptions, emit: (e: DemoEvent) => void): Promise<DemoSummary> {
  const t0 = performance.now();
  const cfg: ModelConfig = PRESETS[opts.preset];
  if (cfg.tokenizer !== 'byte') throw new Error(`demo: preset '${opts.preset}' needs the Qwen3 tokenizer and user-provided weights; the demo trains byte-level presets (nano, tiny, small)`);
  let failures = 0;
  if (!opts.skipSelfCheck) {
    emit({ kind: 'stage', stage: 'self-check', detail: 'kernels vs float64 reference' });
    const results = await runSelfCheck(rt, { onResult: (r) => emit({ kind: 'check', name: r.name, ok: r.ok, relErr: r.relErr }) });
    failures = results.filter((r) => !r.ok).length;
    if (failures > 0) throw new Error(`demo: ${failures} kernel self-check(s) failed on this adapter; the results above say which`);
  }
  emit({ kind: 'stage', stage: 'data', detail: `${opts.trainConversations} tool-calling conversations` });
  const train = await routingToolChats(opts.trainConversations, opts.seed, 'train');
  const heldout = await routingToolChats(opts.evalTasks, opts.seed, 'heldout');
  const fit = assertPresetFits(rt.ctx, opts.preset, { batch: opts.batchSize, seqLen: opts.seqLen, optimizer: 'adamw', weightDtype: 'f32' });
  emit({ kind: 'stage', stage: 'model', detail: fit.summary });
  const w = new GpuWeights(rt, cfg, initialWeights(cfg, opts.seed));
  const parameters = w.table.reduce((s, p) => s + p.shape.reduce((a, b) => a * b, 1), 0);
  try {
    emit({ kind: 'stage', stage: 'eval', detail: 'held-out tool calls before training' });
    const before = await toolCallAccuracy(rt, w, heldout, opts.seed);
    emit({ kind: 'eval', label: 'before SFT', success: before.correct, total: heldout.length });

    emit({ kind: 'stage', stage: 'sft', detail: `${opts.preset}, ${parameters} parameters, ${opts.sftSteps} steps` });
    const history = await trainSft(
      rt, w, { train: train.map(toDoc), padId: tok.padId },
      { ...DEFAULT_SFT, batchSize: opts.batchSize, seqLen: opts.seqLen, steps: opts.sftSteps, lr: opts.lr, warmupSteps: Math.min(10, opts.sftSteps), pack: false, seed: opts.seed },
      (metrics) => emit({ kind: 'sft', metrics, totalSteps: opts.sftSteps }),
    );

    emit({ kind: 'stage', stage: 'eval', detail: 'held-out tool calls after SFT' });
    const after = await toolCallAccuracy(rt, w, heldout, opts.seed);
    emit({ kind: 'eval', label: 'after SFT', success: after.correct, total: heldout.length });
    const userTurn = heldout[0].messages[1].content;
    emit({ kind: 'sample', text: `user: ${userTurn}\nassistant: ${after.texts[0]}` });

    const summary: DemoSummary = {
      preset: opts.preset, parameters, selfCheckFailures: failures,
      firstLoss: history[0]?.loss ?? Number.NaN, finalLoss: history.at(-1)?.loss ?? Number.NaN,
      heldoutSuccessBefore: before.correct / heldout.length, heldoutSuccessAfter: after.correct / heldout.length,
      seconds: (performance.now() - t0) / 1000,
    };
    emit({ kind: 'done', summary });
    return summary;
  } finally {
    w.destroy();
  }
}
