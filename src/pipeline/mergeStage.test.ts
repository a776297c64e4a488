// The runner's specialist and merge stages, and LoRA, end to end on the micro model (Node WebGPU):
// each specialist equals a separate run on its task set alone from the same start; the merge stage's
// weights equal the merge method applied to those specialists (not one of them, not the start); an
// eval before the merge scores every specialist. LoRA trains adapters only: what moves is a rank-≤r
// update of the projections, and norms and embeddings stay bit-identical; a LoRA run stopped inside
// its stage resumes with its checkpoint's adapters to the same weights as a run that never stopped. A
// stage's own `lora: false` trains every weight; the next stage's adapters start from its weights.
import { describe, expect, it } from 'vitest';
import { testRuntime } from '../gpu/testDevice';
import { initialWeights } from '../model/weights';
import { MemoryBackend } from '../storage/memoryBackend';
import { MERGE_METHODS, mergeOptions } from '../train/merge/methods';
import { MICRO_MODEL } from '../train/testing/microModel';
import { PIPELINE_CONFIG_VERSION, type PipelineConfigInput, parsePipelineConfig } from './config';
import { resumePipeline } from './resume';
import { runPipeline } from './runner';
import type { PendingSpecialists } from './specialists';

const ROUTE4 = { family: 'function-calling' as const, level: 'route4', weight: 1 };
const ROUTE8 = { family: 'function-calling' as const, level: 'route8', weight: 1 };
const SFT = { kind: 'sft' as const, data: { source: 'synthetic' as const, examples: 8 }, steps: 3, batchSize: 2, lr: 1e-2, warmupSteps: 0 };
const EVAL = { kind: 'eval' as const, label: 'check', split: 'test' as const, n: 2 };
const config = (tasks: PipelineConfigInput['tasks'], stages: PipelineConfigInput['stages'], extra: Partial<PipelineConfigInput> = {}) => parsePipelineConfig({
  version: PIPELINE_CONFIG_VERSION, preset: 'nano', seed: 3, tasks, context: { maxTotalTokens: 384, maxNewTokensPerTurn: 16, maxTurns: 1 }, stages, ...extra,
});

describe('pipeline merge stage', () => {
  it('SFT specialists → eval of each → TIES merge → eval: the merged weights are TIES of the specialists, each specialist a run on its task set alone', async () => {
    const rt = await testRuntime('opengles');
    const start = initialWeights(MICRO_MODEL, 3);
    const opts = { model: MICRO_MODEL, initial: start };
    const run = async (tasks: PipelineConfigInput['tasks'], stages: PipelineConfigInput['stages']) => {
      const r = await runPipeline(rt, config(tasks, stages), {}, opts);
      const weights = await r.weights.download();
      r.weights.destroy();
      return { r, weights };
    };
    const merge = { kind: 'merge' as const, method: 'ties', weights: [1, 2], density: 0.5 };
    const { r, weights: merged } = await run([ROUTE4, ROUTE8], [{ ...SFT, specialists: true }, EVAL, merge, EVAL]);
    const { weights: a } = await run([ROUTE4], [SFT]);
    const { weights: b } = await run([ROUTE8], [SFT]);

    expect(r.sft.map((s) => s.specialist)).toEqual(['function-calling/route4', 'function-calling/route8']);
    expect(r.evals.map((e) => e.label)).toEqual(['check · specialist function-calling/route4', 'check · specialist function-calling/route8', 'check']);
    expect(r.merges).toEqual([expect.objectContaining({ stage: 2, method: 'ties', specialists: ['function-calling/route4', 'function-calling/route8'] })]);

    const ties = MERGE_METHODS.ties;
    const options = mergeOptions(ties, 2, { weights: [1, 2], density: 0.5 });
    let differsFromA = 0;
    let differsFromB = 0;
    let differsFromStart = 0;
    for (const [name, m] of merged) {
      const expected = ties.merge({ name, base: start.get(name)!, models: [a.get(name)!, b.get(name)!] }, options);
      expect(m, name).toEqual(expected);
      differsFromA += Number(m.some((x, j) => x !== a.get(name)![j]));
      differsFromB += Number(m.some((x, j) => x !== b.get(name)![j]));
      differsFromStart += Number(m.some((x, j) => x !== start.get(name)![j]));
    }
    // a merge that returned one specialist (or the start) would equal it in every tensor
    expect(differsFromA).toBeGreaterThan(0);
    expect(differsFromB).toBeGreaterThan(0);
    expect(differsFromStart).toBeGreaterThan(0);
  }, 180_000);

  it('a fisher merge stage: each specialist\'s Fisher on its own train conversations, the merge = the Fisher-weighted average of the specialists', async () => {
    const rt = await testRuntime('opengles');
    const start = initialWeights(MICRO_MODEL, 3);
    let pending: PendingSpecialists | null = null;
    const logs: string[] = [];
    const r = await runPipeline(rt, config([ROUTE4, ROUTE8], [{ ...SFT, specialists: true }, { kind: 'merge', method: 'fisher', weights: [1, 2] }]), { log: (l) => void logs.push(l), onSpecialists: (_i, p) => { pending = p; } }, { model: MICRO_MODEL, initial: start });
    const merged = await r.weights.download();
    r.weights.destroy();
    const p = pending as PendingSpecialists | null;
    if (!p?.fisher) throw new Error('the merge stage computed no Fisher diagonals');
    expect(logs.filter((l) => l.startsWith('fisher: specialist'))).toHaveLength(2);
    expect(r.merges[0]).toMatchObject({ method: 'fisher', options: { weights: [1, 2] } });
    const fisher = MERGE_METHODS.fisher;
    const options = mergeOptions(fisher, 2, { weights: [1, 2] });
    const linear = MERGE_METHODS.linear;
    let differsFromLinear = 0;
    for (const [name, m] of merged) {
      const models = p.models.map((s) => s.weights.get(name)!);
      const importance = p.fisher.map((f) => f.get(name)!);
      expect(m, name).toEqual(fisher.merge({ name, base: null, models, importance }, options));
      differsFromLinear += Number(m.some((x, j) => Math.abs(x - linear.merge({ name, base: null, models }, options)[j]) > 1e-6));
    }
    // the two specialists' Fisher diagonals differ (two task sets), and so the merge is not the weighted average
    const [f1, f2] = p.fisher;
    expect([...f1].some(([name, v]) => v.some((x, j) => x !== f2.get(name)![j]))).toBe(true);
    expect(differsFromLinear).toBeGreaterThan(0);
  }, 180_000);

  it('SFT → GRPO specialists: steps counted on across specialists, histories tagged; a linear merge with weight 1 each', async () => {
    const rt = await testRuntime('opengles');
    const steps: number[] = [];
    const grpo = { kind: 'grpo' as const, steps: 2, tasksPerStep: 2, groupSize: 2, lr: 1e-2, warmupSteps: 0, samplingRounds: 1, klCoef: 0, specialists: true };
    const r = await runPipeline(rt, config([ROUTE4, ROUTE8], [SFT, grpo, { kind: 'merge', method: 'linear' }]), { onRlStep: (_i, rec) => void steps.push(rec.step) }, { model: MICRO_MODEL, initial: initialWeights(MICRO_MODEL, 3) });
    const merged = await r.weights.download();
    r.weights.destroy();
    expect(steps).toEqual([1, 2, 3, 4]);
    expect(r.grpo.map((g) => [g.specialist, g.history.length])).toEqual([['function-calling/route4', 2], ['function-calling/route8', 2]]);
    expect(r.merges[0]).toMatchObject({ method: 'linear', specialists: ['function-calling/route4', 'function-calling/route8'], options: { weights: [1, 1] } });
    expect(merged.size).toBeGreaterThan(0);
  }, 120_000);

  it('LoRA rank 2: only the projections move, by a rank-≤2 update; embeddings and norms stay bit-identical', async () => {
    const rt = await testRuntime('opengles');
    const start = initialWeights(MICRO_MODEL, 3);
    const r = await runPipeline(rt, config([ROUTE4], [SFT], { lora: { rank: 2 } }), {}, { model: MICRO_MODEL, initial: start });
    const after = await r.weights.download();
    r.weights.destroy();
    expect(r.sft[0].history.at(-1)!.loss).toBeLessThan(r.sft[0].history[0].loss);
    let adapted = 0;
    for (const [name, w] of after) {
      const w0 = start.get(name)!;
      if (!/_proj\.weight$/.test(name)) {
        expect(w, name).toEqual(w0);
        continue;
      }
      const [outF] = [w.length / inFeatures(name)];
      const rank = numericRank(w.map((x, j) => x - w0[j]), outF, inFeatures(name));
      expect(rank, name).toBeGreaterThan(0);
      expect(rank, name).toBeLessThanOrEqual(2);
      adapted++;
    }
    expect(adapted).toBe(7); // q, k, v, o, gate, up, down of the one layer
  }, 120_000);

  it("a stage's own lora: false trains every weight under config.lora; the next stage's adapters move only the projections, by rank ≤ 2, from there", async () => {
    const rt = await testRuntime('opengles');
    const start = initialWeights(MICRO_MODEL, 3);
    const run = async (stages: PipelineConfigInput['stages']) => {
      const r = await runPipeline(rt, config([ROUTE4], stages, { lora: { rank: 2 } }), {}, { model: MICRO_MODEL, initial: start });
      const weights = await r.weights.download();
      r.weights.destroy();
      return { r, weights };
    };
    const full = await run([{ ...SFT, lora: false }]);
    const then = await run([{ ...SFT, lora: false }, SFT]);
    expect(full.r.sft[0].streams).toEqual({ data: 0 }); // no adapters drawn in the full stage
    expect(then.r.sft[1].streams).toEqual({ data: 1, lora: 1 });
    // compute.ts: a trained token costs 3 forward-equivalents with every weight trained, 2 with adapters
    const tokens = (j: number) => then.r.sft[j].history.reduce((a, m) => a + m.tokens, 0);
    expect(then.r.compute.stage(0)).toBe(3 * tokens(0));
    expect(then.r.compute.stage(1)).toBe(2 * tokens(1));
    const embed = 'model.embed_tokens.weight';
    expect(full.weights.get(embed)).not.toEqual(start.get(embed)); // full fine-tuning moved the embeddings
    let adapted = 0;
    for (const [name, w] of then.weights) {
      const w1 = full.weights.get(name)!;
      if (!/_proj\.weight$/.test(name)) {
        expect(w, name).toEqual(w1);
        continue;
      }
      const rank = numericRank(w.map((x, j) => x - w1[j]), w.length / inFeatures(name), inFeatures(name));
      expect(rank, name).toBeGreaterThan(0);
      expect(rank, name).toBeLessThanOrEqual(2);
      adapted++;
    }
    expect(adapted).toBe(7);
  }, 180_000);

  it('LoRA: stopped at SFT step 4 of 6 and resumed from the checkpoint (adapters included), the same weights as a run that never stopped', async () => {
    const rt = await testRuntime('opengles');
    const cfg = config([ROUTE4], [{ ...SFT, steps: 6 }], { lora: { rank: 2 } });
    const opts = { model: MICRO_MODEL, initial: initialWeights(MICRO_MODEL, 3) };
    const whole = await runPipeline(rt, cfg, {}, opts);
    const wholeWeights = await whole.weights.download();
    whole.weights.destroy();
    const store = new MemoryBackend();
    const stop = { onSft: (_i: number, m: { step: number }) => { if (m.step === 5) throw new Error('stopped'); } };
    await expect(runPipeline(rt, cfg, stop, { ...opts, checkpoints: { store, every: 1, keepLast: 2 } })).rejects.toThrow('stopped');
    const found = await resumePipeline(rt, store, cfg, MICRO_MODEL);
    expect(found).toMatchObject({ stage: 0, step: 4 });
    expect(found!.point.lora?.size).toBe(14); // A and B of 7 projections
    const resumed = await runPipeline(rt, cfg, {}, { ...opts, initial: found!.point.initial, resume: found!.point, checkpoints: { store, every: 1, keepLast: 2 } });
    const resumedWeights = await resumed.weights.download();
    resumed.weights.destroy();
    for (const [name, v] of wholeWeights) expect(resumedWeights.get(name), name).toEqual(v);
  }, 120_000);
});

function inFeatures(name: string): number {
  const m = MICRO_MODEL;
  return /down_proj/.test(name) ? m.intermediateSize : /o_proj/.test(name) ? m.numHeads * m.headDim : m.hiddenSize;
}

/** Rank of a (rows, cols) matrix by Gram–Schmidt on its rows; rows whose remainder is under 1e-3 of the largest row norm count as dependent. */
function numericRank(values: Float32Array, rows: number, cols: number): number {
  const basis: Float64Array[] = [];
  let largest = 0;
  for (let i = 0; i < rows; i++) largest = Math.max(largest, Math.hypot(...values.subarray(i * cols, (i + 1) * cols)));
  for (let i = 0; i < rows; i++) {
    const v = Float64Array.from(values.subarray(i * cols, (i + 1) * cols));
    for (const q of basis) {
      let dot = 0;
      for (let j = 0; j < cols; j++) dot += v[j] * q[j];
      for (let j = 0; j < cols; j++) v[j] -= dot * q[j];
    }
    const norm = Math.hypot(...v);
    if (norm > 1e-3 * largest) basis.push(v.map((x) => x / norm));
  }
  return basis.length;
}
