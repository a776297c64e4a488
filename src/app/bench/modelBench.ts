// Model-level rows of the bench: training throughput (nano, tiny), GPU bytes per parameter while
// training, and decode throughput with the KV cache versus recomputing the whole prefix.
// No peer library trains or decodes these models, so peers are null with that reason.
import type { GpuRuntime } from '../../gpu/runtime';
import { planActivations, planBackwardScratch, releaseActivations, releaseBackwardScratch } from '../../model/activations';
import { PRESETS, type PresetName } from '../../model/config';
import { Decoder } from '../../model/decode';
import { modelForward, writeBatch } from '../../model/forward';
import { supervisedStep } from '../../model/trainStep';
import { GpuWeights, initialWeights } from '../../model/weights';
import { AdamWState } from '../../train/optimizerState';
import { Rng } from '../../util/rng';
import { type BenchCase, registerBench } from './registry';

const noPeer = (what: string) => async (): Promise<number> => {
  throw new Error(`no ${what} in this library`);
};
const NO_PEERS = { 'tfjs-webgpu': noPeer('Qwen3 training/decoding loop'), 'ort-webgpu': noPeer('Qwen3 training/decoding loop') };

function trainRow(preset: PresetName, B: number, T: number): BenchCase[] {
  let st: { w: GpuWeights; opt: AdamWState; acts: ReturnType<typeof planActivations>; scratch: ReturnType<typeof planBackwardScratch>; params: number; bytes: number } | null = null;
  const setup = (rt: GpuRuntime) => {
    if (st) return st;
    const cfg = PRESETS[preset];
    const before = rt.pool.getStats().heldBytes;
    const w = new GpuWeights(rt, cfg, initialWeights(cfg, 1));
    const acts = planActivations(rt, cfg, B, T);
    const scratch = planBackwardScratch(rt, cfg, B, T);
    const opt = new AdamWState(rt, w);
    const params = w.table.reduce((s, p) => s + p.shape.reduce((a, b) => a * b, 1), 0);
    st = { w, opt, acts, scratch, params, bytes: rt.pool.getStats().heldBytes - before };
    return st;
  };
  const rng = new Rng(1);
  const N = B * T;
  const batch = { inputIds: Int32Array.from({ length: N }, () => rng.int(0, 255)), targets: Int32Array.from({ length: N }, () => rng.int(0, 255)), mask: new Float32Array(N).fill(1) };
  const dispose = (rt: GpuRuntime) => {
    if (!st) return;
    releaseActivations(rt, st.acts);
    releaseBackwardScratch(rt, st.scratch);
    st.opt.destroy();
    st.w.destroy();
    st = null;
  };
  return [
    {
      name: `train ${preset} B=${B} T=${T}`,
      unit: 'tokens/s',
      async run(rt) {
        const s = setup(rt);
        await rt.sync();
        const t0 = performance.now();
        s.w.zeroGrads();
        await supervisedStep(rt, s.w, s.acts, s.scratch, batch);
        await s.opt.apply({ lr: 1e-4, beta1: 0.9, beta2: 0.95, eps: 1e-8, weightDecay: 0 }, 1);
        return N / ((performance.now() - t0) / 1000);
      },
      peers: NO_PEERS,
    },
    {
      name: `gpu bytes per parameter training ${preset} B=${B} T=${T}`,
      unit: 'bytes/param',
      async run(rt) {
        const s = setup(rt);
        return s.bytes / s.params; // weights, grads, AdamW moments, activations, scratch
      },
      peers: NO_PEERS,
      dispose,
    },
  ];
}

function decodeRows(T: number, newTokens: number): BenchCase[] {
  const cfg = { ...PRESETS.nano, maxPositionEmbeddings: Math.max(PRESETS.nano.maxPositionEmbeddings, T + newTokens) };
  const prompt = Int32Array.from({ length: T }, (_, i) => (i * 7) % 256);
  let w: GpuWeights | null = null;
  const weights = (rt: GpuRuntime) => (w ??= new GpuWeights(rt, cfg, initialWeights(cfg, 2)));
  return [
    {
      name: `decode nano T=${T} kv-cache`,
      unit: 'tokens/s',
      async run(rt) {
        const dec = new Decoder(rt, weights(rt), 1, T + newTokens);
        await dec.forward(prompt, Int32Array.from([0]), Int32Array.from([T - 1])); // prefill (not timed)
        const t0 = performance.now();
        for (let i = 0; i < newTokens; i++) await dec.forward(Int32Array.from([i % 256]), Int32Array.from([T + i]), Int32Array.from([0]));
        const rate = newTokens / ((performance.now() - t0) / 1000);
        dec.destroy();
        return rate;
      },
      peers: NO_PEERS,
    },
    {
      name: `decode nano T=${T} recompute`,
      unit: 'tokens/s',
      async run(rt) {
        const ww = weights(rt);
        const t0 = performance.now();
        for (let i = 0; i < newTokens; i++) {
          const L = T + i + 1; // the whole prefix again for every new token
          const acts = planActivations(rt, cfg, 1, L);
          writeBatch(rt, ww, acts, { inputIds: Int32Array.from({ length: L }, (_, j) => (j < T ? prompt[j] : j % 256)) });
          modelForward(rt, ww, acts);
          await rt.readF32(acts.logits);
          releaseActivations(rt, acts);
        }
        return newTokens / ((performance.now() - t0) / 1000);
      },
      peers: NO_PEERS,
      dispose(rt) {
        w?.destroy();
        w = null;
        void rt;
      },
    },
  ];
}

registerBench(...trainRow('nano', 4, 128), ...trainRow('tiny', 2, 128), ...decodeRows(128, 8), ...decodeRows(512, 4));
