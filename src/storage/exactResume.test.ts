// Exact resume: stop at step k, save a checkpoint (disk back-end), rebuild everything from it, resume
// → steps k+1 … n have the same metrics as an uninterrupted run (same seed, same adapter), for SFT
// (nano) and the sync GRPO loop with a KL reference (one-layer model, llvmpipe). Also a LoRA SFT run.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EncodedDoc } from '../data/packing';
import type { EnvFamily, TaskBase } from '../envs/types';
import { weightedReward } from '../envs/types';
import { fakeFamily } from '../eval/fakeFamily';
import type { GpuRuntime } from '../gpu/runtime';
import { testRuntime } from '../gpu/testDevice';
import { type ModelConfig, PRESETS } from '../model/config';
import { LoraAdapters, type LoraConfig } from '../model/lora';
import { attachLora } from '../model/loraAttach';
import { GpuWeights, initialWeights } from '../model/weights';
import { ByteTokenizer } from '../tokenizer';
import { grpoConfig } from '../train/rl/grpo';
import { DEFAULT_GRPO_TRAINER } from '../train/rl/grpoTrainer';
import type { RlStepRecord } from '../train/rl/rlMetrics';
import { runSyncRl } from '../train/rl/rlLoop';
import { DEFAULT_ROLLOUT } from '../train/rl/rollout';
import { DEFAULT_SFT, type SftMetrics, trainSft } from '../train/sft/sft';
import { MICRO_MODEL } from '../train/testing/microModel';
import { Rng } from '../util/rng';
import { loadLatestCheckpoint, saveCheckpoint } from './checkpoint';
import { DiskBackend } from './diskBackend';
import { type CheckpointExpectation, tokenizerIdentity } from './format';
import { readCheckpointModel } from './modelCheckpoint';
import { captureTraining, readOptimizer, restoreReference, restoreWeights, trainingContents } from './trainingCheckpoint';

let dir: string;
let rt: GpuRuntime;
const tok = new ByteTokenizer();
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tabforge-resume-'));
  rt = await testRuntime('opengles');
});
afterAll(async () => { await rm(dir, { recursive: true, force: true }); });

/** Timing metrics differ between runs by nature; everything else must be equal. */
const TIMING = /per_s|seconds|tokensPerSec|^time\//;
const sftComparable = (m: SftMetrics) => Object.fromEntries(Object.entries(m).filter(([k]) => !TIMING.test(k)));
const rlComparable = (r: RlStepRecord) => ({ ...r, metrics: Object.fromEntries(Object.entries(r.metrics).filter(([k]) => !TIMING.test(k))) });

function docs(n: number): EncodedDoc[] {
  const rng = new Rng(3);
  return Array.from({ length: n }, () => {
    const len = rng.int(20, 60);
    return { ids: Array.from({ length: len }, () => rng.int(0, 255)), mask: Array.from({ length: len }, (_, i) => (i > len / 3 ? 1 : 0)) };
  });
}

/** fakeFamily's tasks with a reward a random model varies on (the share of ASCII characters it writes), one turn. */
function textRewardFamily(): EnvFamily<TaskBase> {
  const base = fakeFamily() as unknown as EnvFamily<TaskBase>;
  return {
    ...base,
    createEnv(limits, weights) {
      const env = base.createEnv(limits, weights);
      return {
        family: env.family,
        reset: (task) => env.reset(task),
        async step(text) {
          const ascii = [...text].filter((c) => c.charCodeAt(0) < 128).length / Math.max(text.length, 1);
          return { messages: [], reward: weightedReward({ outcome: ascii }, { outcome: 1 }), done: true, info: {} };
        },
      };
    },
  };
}

describe('exact resume', () => {
  it('SFT (nano, full weights): steps k+1…n after a checkpoint at k equal the uninterrupted run', async () => {
    const cfg = PRESETS.nano;
    const data = { train: docs(12), heldout: docs(3), padId: tok.padId };
    const sft = { ...DEFAULT_SFT, batchSize: 2, seqLen: 64, steps: 6, warmupSteps: 2, evalEvery: 2, seed: 5 };
    const k = 3;
    const uninterrupted = new GpuWeights(rt, cfg, initialWeights(cfg, 1));
    const full = await trainSft(rt, uninterrupted, data, sft);
    uninterrupted.destroy();

    const store = new DiskBackend(join(dir, 'sft'));
    const identity = await tokenizerIdentity(tok);
    const first = new GpuWeights(rt, cfg, initialWeights(cfg, 1));
    const head = await trainSft(rt, first, data, sft, undefined, {
      stopAfter: k,
      afterStep: async (state, opt) => {
        const capture = await captureTraining({ w: first, opt });
        await saveCheckpoint(store, trainingContents(capture, {
          preset: 'nano', model: cfg, tokenizer: identity, policyVersion: state.step,
          training: { stage: 'sft', step: state.step, seed: sft.seed, rng: { rows: state.sampler.rng }, cursors: { order: state.sampler.order, pos: state.sampler.pos } },
        }));
      },
    });
    first.destroy();
    expect(head.map(sftComparable)).toEqual(full.slice(0, k).map(sftComparable));

    // "restart": everything rebuilt from the newest checkpoint
    const expect_: CheckpointExpectation = { preset: 'nano', tokenizer: identity, model: cfg };
    const { reader } = await loadLatestCheckpoint(store, expect_);
    expect(reader!.manifest.training.step).toBe(k);
    const saved = await readCheckpointModel(reader!);
    const resumed = new GpuWeights(rt, saved.cfg, saved.params);
    const t = reader!.manifest.training;
    const tail = await trainSft(rt, resumed, data, sft, undefined, {
      from: { state: { step: t.step, sampler: { rng: t.rng.rows, order: t.cursors.order as number[], pos: t.cursors.pos as number } }, optimizer: await readOptimizer(reader!) },
    });
    resumed.destroy();
    expect(tail.map((m) => m.step)).toEqual([4, 5, 6]);
    expect(tail.map(sftComparable)).toEqual(full.slice(k).map(sftComparable));
  });

  it('SFT with LoRA adapters: the adapters and their moments resume exactly', async () => {
    const cfg: ModelConfig = MICRO_MODEL;
    const lora: LoraConfig = { rank: 2, alpha: 4, targets: ['q_proj', 'up_proj'] };
    const data = { train: docs(6), padId: tok.padId };
    const sft = { ...DEFAULT_SFT, batchSize: 2, seqLen: 64, steps: 4, warmupSteps: 1, seed: 2 };
    const build = (adapterValues?: Map<string, Float32Array>, base = initialWeights(cfg, 4)) => {
      const w = new GpuWeights(rt, cfg, base);
      attachLora(rt, w, new LoraAdapters(rt, cfg, lora, adapterValues, 9));
      return w;
    };
    const a = build();
    const full = await trainSft(rt, a, data, sft);
    a.lora!.destroy();
    a.destroy();
    const b = build();
    let capture: Awaited<ReturnType<typeof captureTraining>> | null = null;
    let state: Parameters<NonNullable<Parameters<typeof trainSft>[5]>['afterStep'] & object>[0] | null = null;
    await trainSft(rt, b, data, sft, undefined, { stopAfter: 2, afterStep: async (s, opt) => { capture = await captureTraining({ w: b, opt }); state = s; } });
    b.lora!.destroy();
    b.destroy();
    const store = new DiskBackend(join(dir, 'lora'));
    await saveCheckpoint(store, trainingContents(capture!, {
      preset: 'micro', model: cfg, lora, tokenizer: await tokenizerIdentity(tok), policyVersion: 2,
      training: { stage: 'sft', step: 2, seed: 2, rng: { rows: state!.sampler.rng }, cursors: { order: state!.sampler.order, pos: state!.sampler.pos } },
    }), { id: 'lora-2' });
    const { reader } = await loadLatestCheckpoint(store);
    const saved = await readCheckpointModel(reader!);
    const c = build(saved.lora!.tensors, saved.params);
    const t = reader!.manifest.training;
    const tail = await trainSft(rt, c, data, sft, undefined, {
      from: { state: { step: 2, sampler: { rng: t.rng.rows, order: t.cursors.order as number[], pos: t.cursors.pos as number } }, optimizer: await readOptimizer(reader!) },
    });
    c.lora!.destroy();
    c.destroy();
    expect(tail.map(sftComparable)).toEqual(full.slice(2).map(sftComparable));
  });

  it('sync GRPO with a KL reference: steps k+1…n after a checkpoint at k equal the uninterrupted run', async () => {
    const cfg = MICRO_MODEL;
    const rollout = { ...DEFAULT_ROLLOUT, groupSize: 2, maxTurns: 1, maxNewTokensPerTurn: 8, maxTotalTokens: 240 };
    const rl = {
      steps: 4, tasksPerStep: 2, seed: 4, warmupSteps: 1, minLrRatio: 0.5, rollout,
      trainer: { ...DEFAULT_GRPO_TRAINER, lr: 1e-2, grpo: grpoConfig('default', { groupSize: 2, klCoef: 0.1 }), microBatchRows: 4, seqLen: 240 },
    };
    const k = 2;
    const family = textRewardFamily();
    const w0 = new GpuWeights(rt, cfg, initialWeights(cfg, 2));
    const full = await runSyncRl(rt, w0, family, tok, rl);
    w0.destroy();
    expect(new Set(full.map((r) => r.metrics.grad_norm)).size).toBe(4); // the steps differ: a real trajectory

    const store = new DiskBackend(join(dir, 'rl'));
    const identity = await tokenizerIdentity(tok);
    const w1 = new GpuWeights(rt, cfg, initialWeights(cfg, 2));
    await runSyncRl(rt, w1, family, tok, rl, undefined, undefined, {
      stopAfter: k,
      afterStep: async (state, trainer) => {
        const capture = await captureTraining({ w: w1, opt: trainer.opt, reference: trainer.reference });
        await saveCheckpoint(store, trainingContents(capture, {
          preset: 'micro', model: cfg, tokenizer: identity, policyVersion: state.version, pipelineConfig: rl,
          training: { stage: 'rl', step: state.step, seed: rl.seed, rng: {}, cursors: { refilled: state.refilled } },
        }));
      },
    });
    w1.destroy();

    const { reader } = await loadLatestCheckpoint(store, { tokenizer: identity, model: cfg });
    const saved = await readCheckpointModel(reader!);
    const w2 = new GpuWeights(rt, saved.cfg, saved.params);
    const m = reader!.manifest;
    const optimizer = await readOptimizer(reader!);
    const tail = await runSyncRl(rt, w2, family, tok, rl, undefined, undefined, {
      from: { step: m.training.step, version: m.policyVersion, refilled: m.training.cursors.refilled as number },
      restore: async (trainer) => {
        trainer.opt.restore(optimizer);
        await restoreReference(rt, reader!, trainer.reference!);
      },
    });
    w2.destroy();
    expect(tail.map((r) => r.step)).toEqual([3, 4]);
    expect(tail.map(rlComparable)).toEqual(full.slice(k).map(rlComparable));
  });

  it('restoreWeights refuses a checkpoint of another model', async () => {
    const store = new DiskBackend(join(dir, 'sft'));
    const { reader } = await loadLatestCheckpoint(store);
    const other = new GpuWeights(rt, MICRO_MODEL, initialWeights(MICRO_MODEL, 1));
    await expect(restoreWeights(rt, reader!, other)).rejects.toThrow(/has \d+ values, the model \d+/);
    other.destroy();
  });
});
