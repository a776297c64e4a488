// Async GRPO on multi-turn episodes, end to end through the pipeline runner (Node WebGPU, llvmpipe):
// a GRPO stage with staleness 1 on the service `status` task set (tools AND a simulated user) runs
// its trainer and rollout actor through the async coordinator (in-process actor pool) on a micro
// model with the trimmed Qwen3 vocabulary. What this pins: episodes take several assistant turns
// with tool results and user replies between them; the loss mask covers exactly the tokens the
// policy sampled; no batch is more than one version old, and some are exactly one (the overlap);
// every behaviour log-prob is that of the weights version the trajectory names (re-scored here with
// that version's published snapshot, and differing from the next version's); the same seed twice
// gives the same metrics and episodes.
//
// Two test fixtures, both because an untrained micro model cannot do the task: its <|im_end|> row
// of the tied embedding is scaled up (a random model almost never samples 1 id of 5 928, and a turn
// cut at maxNewTokensPerTurn ends the episode, so it would never get past turn 1); and the actor
// pool pays each episode for the policy tokens it sampled (the service env pays 0 to every such episode,
// so every group would be dropped and no step would train: the versions would never change).
import { describe, expect, it } from 'vitest';
import { testRuntime } from '../gpu/testDevice';
import type { GpuRuntime } from '../gpu/runtime';
import { TRIMMED_QWEN3_VOCAB_SIZE, type ModelConfig } from '../model/config';
import { planActivations, releaseActivations } from '../model/activations';
import { modelForward, tokenLogprobs, writeBatch } from '../model/forward';
import { GpuWeights, initialWeights } from '../model/weights';
import { weightedReward } from '../envs/types';
import { TOOL_CALL_OPEN, type Tokenizer } from '../tokenizer';
import { loadTrimmedQwen3Tokenizer } from '../tokenizer/tokenizerForModel';
import { inProcessPool, wrapRollouts } from '../train/rl/async/handles';
import { unpackWeights } from '../train/rl/async/weights';
import type { RlStepRecord } from '../train/rl/rlMetrics';
import { checkTrajectory, type Trajectory } from '../train/rl/trajectory';
import { MICRO_MODEL } from '../train/testing/microModel';
import { PIPELINE_CONFIG_VERSION, parsePipelineConfig } from './config';
import { runPipeline } from './runner';

const MICRO_Q: ModelConfig = { ...MICRO_MODEL, vocabSize: TRIMMED_QWEN3_VOCAB_SIZE, tokenizer: 'qwen3-trimmed', maxPositionEmbeddings: 1024 };
const MAX_TURNS = 4;

const CFG = parsePipelineConfig({
  version: PIPELINE_CONFIG_VERSION, preset: 'nano-q', seed: 11, tasks: [{ family: 'service', level: 'status' }],
  context: { maxTotalTokens: 448, maxNewTokensPerTurn: 16, maxTurns: MAX_TURNS },
  stages: [{ kind: 'grpo', steps: 3, tasksPerStep: 2, groupSize: 4, lr: 1e-2, warmupSteps: 0, klCoef: 0, samplingRounds: 1, staleness: 1 }],
});

/**
 * Seeded micro weights that end turns and open tool calls: the <|im_end|> and <tool_call> rows of the
 * tied embedding scaled to RMS ≈ 1 (init RMS ≈ 0.02), so a random model samples them now and then.
 */
function talkingWeights(tok: Tokenizer): Map<string, Float32Array> {
  const w = initialWeights(MICRO_Q, 7);
  const E = w.get('model.embed_tokens.weight')!; // (V, C), tied with the LM head
  const C = MICRO_Q.hiddenSize;
  const [toolCall] = tok.encode(TOOL_CALL_OPEN);
  const row = (id: number) => E.subarray(id * C, (id + 1) * C);
  const unit = (r: Float32Array) => {
    const rms = Math.sqrt(r.reduce((s, x) => s + x * x, 0) / C);
    return Float32Array.from(r, (x) => x / rms);
  };
  const tc = unit(row(toolCall));
  const ie = unit(row(tok.imEndId));
  row(toolCall).set(tc);
  // <|im_end|> leans 1.5× along <tool_call>: right after a <tool_call> (whose own logit is then the
  // largest), <|im_end|> wins, so a malformed call ends its turn and the env's tool reply follows
  row(tok.imEndId).set(ie.map((x, j) => x + 1.5 * tc[j]));
  return w;
}

/** The test's reward: policy tokens sampled over the episode's budget (maxTurns × maxNewTokensPerTurn), as running totals after each turn. */
function payTokens(t: Trajectory): Trajectory {
  const budget = MAX_TURNS * CFG.context.maxNewTokensPerTurn;
  const totals = Array.from({ length: t.turns }, (_, k) => t.turnIndex.filter((x) => x >= 0 && x <= k).length / budget);
  return { ...t, reward: weightedReward({ tokens: t.responseTokens / budget }, { tokens: 1 }), turnTotals: totals, turnComponents: totals.map((x) => ({ tokens: x })), decidedAt: undefined };
}

interface Run {
  history: RlStepRecord[];
  trajs: Trajectory[];
  /** Every weights snapshot the trainer published, by version. */
  snapshots: Map<number, Map<string, Float32Array>>;
}

async function run(rt: GpuRuntime, tok: Tokenizer): Promise<Run> {
  const trajs: Trajectory[] = [];
  const snapshots = new Map<number, Map<string, Float32Array>>();
  const r = await runPipeline(rt, CFG, { onRollouts: (_stage, _step, t) => trajs.push(...t) }, {
    model: MICRO_Q, initial: talkingWeights(tok),
    actorPool: async ({ spec, trainer, initial }) => {
      const pool = wrapRollouts(inProcessPool({ rt, spec, trainer, initial }), (rollout) => async (job) => {
        const out = await rollout(job);
        return { ...out, trajectories: out.trajectories.map(payTokens) };
      });
      const snapshot = pool.trainer.snapshot;
      pool.trainer.snapshot = async () => {
        const p = await snapshot();
        snapshots.set(p.version, unpackWeights(p));
        return p;
      };
      return pool;
    },
  });
  r.weights.destroy();
    return { history: r.grpo[0].history, trajs, snapshots };
}

/**
 * Largest |behaviour − re-scored| log-prob over each trajectory's policy tokens, re-scored with
 * `values` in one forward of the trajectories as rows (right-padded: causal attention keeps the
 * padding out of every real position).
 */
async function logprobGaps(rt: GpuRuntime, values: Map<string, Float32Array>, trajs: readonly Trajectory[]): Promise<number[]> {
  const B = trajs.length;
  const T = Math.max(...trajs.map((t) => t.ids.length));
  const inputIds = new Int32Array(B * T);
  const targets = new Int32Array(B * T);
  const mask = new Float32Array(B * T);
  trajs.forEach((t, b) => t.ids.forEach((id, i) => {
    inputIds[b * T + i] = id;
    if (i > 0) {
      targets[b * T + i - 1] = id; // position i − 1 predicts token i
      mask[b * T + i - 1] = t.lossMask[i];
    }
  }));
  const w = new GpuWeights(rt, MICRO_Q, values);
  const acts = planActivations(rt, MICRO_Q, B, T);
  try {
    writeBatch(rt, w, acts, { inputIds, targets, mask });
    modelForward(rt, w, acts);
    tokenLogprobs(rt, w, acts);
    const logp = await rt.readF32(acts.logp); // (B·T), NaN where mask is 0 on a scored-rows plan
    return trajs.map((t, b) => t.lossMask.reduce((gap, m, i) => (m ? Math.max(gap, Math.abs(logp[b * T + i - 1] - t.behaviourLogprobs[i])) : gap), 0));
  } finally {
    releaseActivations(rt, acts);
    w.destroy();
  }
}

/** Metrics without wall-clock figures (those differ between any two runs). */
const timeless = (h: RlStepRecord[]) => h.map((r) => ({ ...r, metrics: Object.fromEntries(Object.entries(r.metrics).filter(([k]) => !/_s$|seconds|time|per_s/.test(k))) }));

describe('async GRPO on multi-turn episodes through the pipeline (llvmpipe)', () => {
  it('service status, staleness 1: multi-turn episodes, policy-only mask, staleness ≤ 1, behaviour log-probs of the sampling version, deterministic', async () => {
    const rt = await testRuntime('opengles');
    const tok = await loadTrimmedQwen3Tokenizer();
    const a = await run(rt, tok);
    console.log(a.history.map((r) => `step ${r.step}: version ${r.version}, staleness histogram ${JSON.stringify(r.stalenessHistogram)}, turns/mean ${r.metrics['turns/mean']}`).join('\n'));

    // Every step trained (the versions moved), through the coordinator.
    expect(a.history.map((r) => [r.step, r.skipped, r.metrics['async/staleness_bound']])).toEqual([[1, false, 1], [2, false, 1], [3, false, 1]]);
    expect(a.trajs).toHaveLength(3 * 2 * 4);

    // Multi-turn: most episodes take ≥ 2 assistant turns, with tool results or user replies between them.
    const multi = a.trajs.filter((t) => t.turns >= 2);
    expect(multi.length).toBeGreaterThanOrEqual(a.trajs.length / 2);
    expect(Math.max(...a.history.map((r) => r.metrics['turns/mean']))).toBeGreaterThan(1.5);
    const between = (t: Trajectory) => t.messages.slice(t.messages.findIndex((m) => m.role === 'assistant'), t.messages.findLastIndex((m) => m.role === 'assistant')).filter((m) => m.role !== 'assistant').map((m) => m.role);
    expect(new Set(multi.flatMap(between))).toEqual(new Set(['tool', 'user']));

    // The loss mask covers exactly what the policy sampled: each turn's masked tokens are that turn's
    // assistant message (+ its <|im_end|>), and the tokens between turns (the env's replies) are not masked.
    for (const t of a.trajs) {
      checkTrajectory(t);
      const turnAt = t.messages.flatMap((m, i) => (m.role === 'assistant' ? [i] : [])); // message index of each assistant turn
      expect(turnAt).toHaveLength(t.turns);
      let prevEnd = -1;
      for (let k = 0; k < t.turns; k++) {
        const at = t.turnIndex.flatMap((x, i) => (x === k ? [i] : []));
        expect(at.length).toBeGreaterThan(0);
        expect(at.at(-1)! - at[0] + 1, `turn ${k} is one contiguous span`).toBe(at.length);
        const ids = at.map((i) => t.ids[i]);
        expect(tok.decode(ids.at(-1) === tok.imEndId ? ids.slice(0, -1) : ids)).toBe(t.messages[turnAt[k]].content);
        // before it: the opening (k = 0) or the env's replies to turn k − 1, none of them trained
        expect(t.lossMask.slice(prevEnd + 1, at[0]).every((m) => m === 0)).toBe(true);
        if (k > 0) {
          const gap = tok.decode(t.ids.slice(prevEnd + 1, at[0]));
          for (const m of t.messages.slice(turnAt[k - 1] + 1, turnAt[k])) expect(gap).toContain(m.content.slice(0, 20));
        }
        prevEnd = at.at(-1)!;
      }
    }

    // Staleness: never above the bound; batches one version old exist (rollouts overlapped training).
    for (const r of a.history) {
      expect(r.metrics['staleness/max']).toBeLessThanOrEqual(1);
      expect(r.stalenessHistogram.length).toBeLessThanOrEqual(2);
    }
    expect(a.history.some((r) => r.metrics['staleness/max'] === 1)).toBe(true);
    // One actor, k = 1: slot s starts once step s − 1 is done, with the newest weights then; slot 1
    // starts while step 1 trains, so slots 0, 1, 2 are sampled by versions 0, 0, 1.
    expect(a.trajs.map((t) => t.policyVersion)).toEqual([0, 0, 1].flatMap((v) => Array<number>(8).fill(v)));

    // Behaviour log-probs: those of the version each trajectory names, not of the next one.
    const versions = [...new Set(a.trajs.map((t) => t.policyVersion))].sort();
    expect(versions.length).toBeGreaterThanOrEqual(2);
    for (const v of versions) {
      const sampled = a.trajs.filter((t) => t.policyVersion === v);
      for (const gap of await logprobGaps(rt, a.snapshots.get(v)!, sampled)) expect(gap).toBeLessThan(2e-3);
      for (const gap of await logprobGaps(rt, a.snapshots.get(v + 1)!, sampled)) expect(gap).toBeGreaterThan(1e-2);
    }

    // The same seed again: the same step metrics and episodes.
    const b = await run(rt, tok);
    expect(timeless(b.history)).toEqual(timeless(a.history));
    expect(b.trajs.map((t) => [t.ids, t.policyVersion])).toEqual(a.trajs.map((t) => [t.ids, t.policyVersion]));
  }, 300_000);
});
