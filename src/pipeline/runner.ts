// Runs a PipelineConfig: a model (the preset's seeded init, or given weights), then each stage in
// order — sft (verified synthetic trajectories or a JSONL file), grpo (multi-turn, sync or async),
// merge (specialists of the stages before it, specialists.ts), eval (greedy on a split, with
// intervals, breakdowns and baselines); with config.lora each training stage trains adapters
// (loraStage.ts). The same runner serves `npm run learn`, `npm run demo`, the page's worker and the
// learning tests; only the config differs. Hooks stream progress; any hook may throw to stop the run (the weights are released).
// Its hooks, options and result types: runnerTypes.ts.
import type { EnvFamily } from '../envs/types';
import { mixFamily } from '../envs/taskMix';
import type { GpuRuntime } from '../gpu/runtime';
import { PRESETS } from '../model/config';
import { GREEDY } from '../model/sampling';
import { GpuWeights, initialWeights } from '../model/weights';
import { type Tokenizer, tokenizerForModel } from '../tokenizer';
import type { EncodedDoc } from '../data/packing';
import { readChatJsonl } from '../data/chatJsonl';
import { runAsyncRl } from '../train/rl/async/coordinator';
import type { RolloutActorSpec } from '../train/rl/async/actors';
import { type ActorPool, inProcessPool, wrapRollouts } from '../train/rl/async/handles';
import { loadWeightsInto } from '../train/rl/async/weights';
import { sftRowLength } from './trainingRows';
import { groupAdvantages, groupsToKeep } from '../train/rl/grpo/advantages';
import { modelTurnGenerator } from '../train/rl/modelGenerator';
import type { RlStepRecord } from '../train/rl/rlMetrics';
import { type RlLoopConfig, type RlResume, runSyncRl } from '../train/rl/rlLoop';
import { defaultRenderer } from '../train/rl/rollout';
import type { Trajectory } from '../train/rl/trajectory';
import { DEFAULT_SFT, type SftResume, trainSft } from '../train/sft/sft';
import { mixSeeds } from '../util/seeds';
import { anyStageLora, type EvalStageConfig, type GrpoStageConfig, type MergeStageConfig, type PipelineConfig, type SftStageConfig, specialistEntries, stageLora, type StageConfig } from './config';
import { STAGE_STREAMS_VERSION, stageStreamAfter, TRAINING_KINDS } from './stageStream';
import { grpoLoopConfig, rolloutConfig } from './loopSettings';
import { rewardWeightErrors, rewardWeightLine } from './rewardWeights';
import { mergeMethod } from '../train/merge/methods';
import { specialistFisher } from './specialistFisher';
import { mergeSpecialists, mergeStageSeed, type PendingSpecialists, type Specialist, specialistHooks, specialistLabel } from './specialists';
import { trainWithLora } from './loraStage';
import { ComputeLedger } from './compute';
import { type PipelineProgress, restoreProgress, type StageStreams } from './progress';
import { tokenizerIdentity, type TokenizerIdentity } from '../storage/format';
import { type AutosaveOptions, rlAutosave, sftAutosave } from '../storage/resume';
import { evaluateSplit } from './evaluation';
import { summarizeEval, type EvalSummary } from './evalSummary';
import { conversationMessages, encodeSftConversations, type SftDataReport, syntheticSftDocs } from './sftData';
import { copyDrills } from '../data/copyDrills';
import type { PipelineHooks, PipelineOptions, PipelineResult } from './runnerTypes';

/**
 * Tasks per validation point of a curve: the n of the run's first validation eval stage — counting
 * `before`, the stages that ran before this config's (the comparison's prefix holds "validation after
 * SFT") — else 64.
 */
export const curveValidationN = (cfg: PipelineConfig, before: readonly StageConfig[] = []): number =>
  [...before, ...cfg.stages].find((x): x is EvalStageConfig => x.kind === 'eval' && x.split === 'validation')?.n ?? 64;

export async function runPipeline(rt: GpuRuntime, cfg: PipelineConfig, hooks: PipelineHooks = {}, opts: PipelineOptions = {}): Promise<PipelineResult> {
  const model = opts.weights?.cfg ?? opts.model ?? PRESETS[cfg.preset];
  if (cfg.context.maxTotalTokens > model.maxPositionEmbeddings) {
    throw new Error(`context.maxTotalTokens (${cfg.context.maxTotalTokens}) is longer than the model's context (${model.maxPositionEmbeddings} positions): lower it or pick a larger preset`);
  }
  cfg.stages.forEach((_, i) => {
    const l = stageLora(cfg, i);
    if (l && l.rank > model.hiddenSize) throw new Error(`${l === cfg.lora ? 'lora' : `stages.${i}.lora`}.rank (${l.rank}) is more than the model's hidden size (${model.hiddenSize}): choose a rank of at most ${model.hiddenSize}`);
  });
  if (anyStageLora(cfg) && opts.weights?.lora) throw new Error('config.lora (or a stage\'s own lora) attaches adapters per stage, but the given model already trains its own LoRA adapters (npm run learn --model: --lora-rank); drop one of them');
  const rewardErrors = rewardWeightErrors(cfg);
  if (rewardErrors.length > 0) throw new Error(rewardErrors.map(rewardWeightLine).join('; '));
  // a config that names its start must get those weights: the seeded init instead would be a silent wrong start
  if (cfg.start && !opts.initial && !opts.weights) throw new Error(`the config starts from the bundled model ${cfg.start.bundled}, but no weights were given for it: load public/models/${cfg.start.bundled}/ (npm run learn -- --init public/models/${cfg.start.bundled}; the page's Start loads it itself; runs shared across tabs or peers do not load one yet), or drop start`);
  const w = opts.weights ?? new GpuWeights(rt, model, opts.initial ?? initialWeights(model, cfg.seed));
  try {
    const run = new Run(rt, cfg, w, hooks, opts);
    await run.init();
    return await run.all();
  } catch (e) {
    if (!opts.weights) w.destroy(); // a failed or stopped run: the caller never gets the weights to release
    throw e;
  }
}

class Run {
  private tok!: Tokenizer; // set by init()
  /** The environments training draws from: the run's mix, or one specialist's task set while it trains. */
  private family: EnvFamily;
  private trainTasks: PipelineConfig['tasks'];
  /** The specialist training now (its task set), null outside specialist stages: no autosave, no swarm. */
  private specialist: string | null = null;
  /** Specialists trained and not merged yet. */
  private pending: PendingSpecialists | null = null;
  private readonly log: (line: string) => void;
  private readonly result: Omit<PipelineResult, 'weights'> = { evals: [], sft: [], grpo: [], merges: [], seconds: [], compute: new ComputeLedger() };
  /** Step metrics and curve of the training stage now running (saved with each checkpoint, so a resumed stage keeps its history). */
  private inflight: PipelineProgress['inflight'] = { stage: -1, sft: [], grpo: [], curve: [] };
  /** The stage a resumed run continues (−1: a fresh run). */
  private readonly resumeStage: number;
  private tokenizerId: TokenizerIdentity | null = null;

  constructor(
    private readonly rt: GpuRuntime,
    private readonly cfg: PipelineConfig,
    private readonly w: GpuWeights,
    private hooks: PipelineHooks,
    private readonly opts: PipelineOptions,
  ) {
    this.family = mixFamily(cfg.tasks);
    this.trainTasks = cfg.tasks;
    this.log = hooks.log ?? (() => {});
    this.resumeStage = -1;
    if (opts.resume) {
      const p = restoreProgress(opts.resume.metrics);
      this.resumeStage = p.stage;
      Object.assign(this.result, { evals: p.evals, sft: p.sft, grpo: p.grpo, merges: p.merges ?? [], seconds: p.seconds });
      for (const [stage, cost] of p.compute) this.result.compute.byStage.set(stage, cost);
      this.inflight = p.inflight;
    }
  }

  async init(): Promise<void> {
    this.tok = this.opts.tokenizer ?? await tokenizerForModel(this.w.cfg);
    if (this.opts.checkpoints) this.tokenizerId = await tokenizerIdentity(this.tok);
  }

  /** Stage i's place among the stages of its kind (or of `kinds`), counting the stages that ran before this config. */
  private stream(i: number, kinds?: readonly StageConfig['kind'][]): number {
    return stageStreamAfter(this.opts.stagesBefore ?? [], this.cfg.stages, i, kinds);
  }

  /** The streams training stage i draws (recorded with its results). */
  private streams(i: number): StageStreams {
    return { data: this.stream(i), ...(stageLora(this.cfg, i) ? { lora: this.stream(i, TRAINING_KINDS) } : {}) };
  }

  /** What a checkpoint stores as the run's metrics: everything reported so far, and the stage running. */
  private progress(stage: number): PipelineProgress {
    return { stage, evals: this.result.evals, sft: this.result.sft, grpo: this.result.grpo, merges: this.result.merges, seconds: this.result.seconds, compute: [...this.result.compute.byStage], inflight: this.inflight };
  }

  private autosave(i: number, totalSteps: number): AutosaveOptions | null {
    const c = this.opts.checkpoints;
    if (!c || !this.tokenizerId || this.specialist !== null) return null; // specialists are not checkpointed (a resume starts their stage again)
    return {
      store: c.store, every: c.every, totalSteps, keepLast: c.keepLast, onSaved: c.onSaved, saveRequested: c.saveRequested, cursors: { pipelineStage: i, streams: STAGE_STREAMS_VERSION },
      run: { preset: this.cfg.preset, model: this.w.cfg, tokenizer: this.tokenizerId, seed: this.cfg.seed, pipelineConfig: this.cfg, metrics: () => this.progress(i) },
    };
  }

  async all(): Promise<PipelineResult> {
    for (let i = 0; i < this.cfg.stages.length; i++) {
      if (i < this.resumeStage) continue; // done before the checkpoint: its results were restored
      const t0 = performance.now();
      const s = this.cfg.stages[i];
      if ((s.kind === 'sft' || s.kind === 'grpo') && s.specialists) await this.trainSpecialists(i, s);
      else if (s.kind === 'sft') await this.sft(i, s);
      else if (s.kind === 'grpo') await this.grpo(i, s);
      else if (s.kind === 'merge') await this.merge(i, s);
      else if (this.pending) await this.evaluateSpecialists(i, s);
      else await this.evaluate(i, s);
      this.result.seconds.push((performance.now() - t0) / 1000);
    }
    return { ...this.result, weights: this.w };
  }

  private async sftDocs(i: number, s: SftStageConfig): Promise<{ docs: EncodedDoc[]; report: SftDataReport }> {
    const render = defaultRenderer(this.tok);
    const max = this.cfg.context.maxTotalTokens;
    if (s.data.source === 'synthetic') {
      const family = s.data.tasks ? mixFamily(s.data.tasks) : this.family;
      const task = await syntheticSftDocs(family, s.data.examples, mixSeeds(this.cfg.seed, 0x5f70), this.tok, render, max, { maxTurns: this.cfg.context.maxTurns }, { randomValues: s.data.randomValues, wrappedRequests: s.data.wrappedRequests, editedRequests: s.data.editedRequests, framedRequests: s.data.framedRequests, randomUsers: s.data.randomUsers, phrasings: s.data.phrasings });
      if (s.data.drills === 0) return task;
      const drills = encodeSftConversations(copyDrills(s.data.drills, mixSeeds(this.cfg.seed, 0xd0d0), s.data.drillEmails ?? 0), this.tok, render, max);
      return { docs: [...task.docs, ...drills.docs], report: { ...task.report, drills: drills.docs.length } };
    }
    if (!this.opts.readText) throw new Error(`stage ${i} (sft): reading ${s.data.path} needs a file reader; this runner was given none`);
    const conversations = readChatJsonl(await this.opts.readText(s.data.path), s.data.path);
    return encodeSftConversations(conversations.map(conversationMessages), this.tok, render, max);
  }

  private async sft(i: number, s: SftStageConfig): Promise<void> {
    const data = await this.sftDocs(i, s);
    if (data.docs.length === 0) throw new Error(`stage ${i} (sft): no conversation fits the context of ${this.cfg.context.maxTotalTokens} tokens (${data.report.tooLong} too long)`);
    this.hooks.onSftData?.(i, data.report);
    this.hooks.onStage?.(i, s, `SFT: ${s.steps} steps × ${s.batchSize} rows on ${data.docs.length} verified conversations`);
    this.log(`sft data: ${data.docs.length} conversations (${data.report.tooLong} too long), mean ${data.report.meanTokens.toFixed(0)} tokens${data.report.randomValues !== undefined ? `; ${data.report.randomValues} with random argument values` : ''}${data.report.wrappedRequests !== undefined ? `; ${data.report.wrappedRequests} with wrapped requests` : ''}${data.report.editedRequests !== undefined ? `; ${data.report.editedRequests} with edited requests` : ''}${data.report.framedRequests !== undefined ? `; ${data.report.framedRequests} with framed requests` : ''}${data.report.randomUsers !== undefined ? `; ${data.report.randomUsers} with a renamed customer` : ''}${data.report.undemonstrated !== undefined ? `; ${data.report.undemonstrated} train tasks passed over (phrasing not demonstrated)` : ''}`);
    const t0 = performance.now();
    const pending: Promise<void>[] = [];
    if (this.inflight.stage !== i) this.inflight = { stage: i, sft: [], grpo: [], curve: [] };
    const save = this.autosave(i, s.steps);
    const resume: SftResume = { ...(save ? sftAutosave(save) : {}), ...(i === this.resumeStage ? this.opts.resume?.sft : {}), ...(this.opts.shard ? { shard: this.opts.shard } : {}) };
    const curve = this.opts.sftCurve?.stage === i ? this.opts.sftCurve : undefined;
    if (curve) {
      const checkpoint = resume.afterStep;
      // after the step's checkpoint (if any), before the next step: the weights are the step's
      resume.afterStep = async (state, opt, w) => {
        await checkpoint?.(state, opt, w);
        if (!curve.steps.includes(state.step) || state.step >= s.steps) return; // the last step's point is the stage's own eval
        const summary = await this.evalSummary(i, { kind: 'eval', label: `SFT step ${state.step}`, split: 'validation', n: curve.n, baselines: false });
        this.inflight.curve.push({ step: state.step, summary });
        this.hooks.onCurve?.(i, state.step, summary);
      };
    }
    await this.withLora(i, () => trainSft(this.rt, this.w, { train: data.docs, padId: this.tok.padId }, {
      ...DEFAULT_SFT, batchSize: s.batchSize, seqLen: sftRowLength(this.cfg), steps: s.steps, lr: s.lr, warmupSteps: s.warmupSteps,
      minLrRatio: s.minLrRatio, pack: true, sharePrefix: true, seed: mixSeeds(this.cfg.seed, 0x5f71, this.stream(i)),
    }, (m) => {
      this.result.compute.addSft(i, m, this.trainsLora());
      this.inflight.sft.push(m);
      const r = this.hooks.onSft?.(i, m);
      if (r) pending.push(r);
      if (m.step % 25 === 0 || m.step === s.steps) this.log(`sft step ${m.step}/${s.steps} loss ${m.loss.toFixed(4)} (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
    }, resume));
    await Promise.all(pending);
    this.result.sft.push({ stage: i, data: data.report, history: [...this.inflight.sft], ...(curve ? { curve: [...this.inflight.curve] } : {}), ...this.specialistTag(), streams: this.streams(i) });
  }

  private async grpo(i: number, s: GrpoStageConfig): Promise<void> {
    const loop = grpoLoopConfig(this.cfg, s, i, this.opts.stagesBefore);
    this.hooks.onStage?.(i, s, `GRPO: ${s.steps} steps × ${s.tasksPerStep} tasks × ${s.groupSize} samples, ${s.credit} credit`);
    const t0 = performance.now();
    if (this.inflight.stage !== i) this.inflight = { stage: i, sft: [], grpo: [], curve: [] };
    // async staleness bound; undefined = the sync loop (always for specialists: they train here, on one task set)
    const k = this.specialist !== null ? undefined : s.staleness ?? (this.opts.rolloutPool ? 0 : undefined);
    if (k !== undefined && this.opts.shard) throw new Error(`stage ${i} (grpo): a data-parallel run trains GRPO with synchronous rollouts on every rank; remove this stage's staleness`);
    if (k !== undefined && stageLora(this.cfg, i)) throw new Error(`stage ${i} (grpo): LoRA stages train here with synchronous rollouts; this run's rollouts go to other tabs or machines (the swarm): remove lora, or train without sharing the run`);
    const validationN = curveValidationN(this.cfg, this.opts.stagesBefore);
    const onStep = async (r: RlStepRecord) => {
      this.result.compute.addGrpo(i, r, s.klCoef > 0, this.trainsLora());
      this.inflight.grpo.push(r);
      await this.hooks.onRlStep?.(i, r);
      const m = r.metrics;
      this.log(`grpo step ${r.step}/${s.steps} sampled train success ${(100 * m.success_rate).toFixed(0)} % reward ${m.reward.toFixed(3)} dropped ${m.groups_dropped ?? 0} KL to ref ${m.kl === undefined ? '–' : m.kl.toFixed(3)} ent ${(m.entropy ?? 0).toFixed(3)}${r.skipped ? ` SKIPPED: ${r.reason}` : ''} (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
      // the curve reads this.w, which the synchronous loop trains in place
      if (k === undefined && s.evalEvery > 0 && r.step % s.evalEvery === 0 && r.step < s.steps) {
        const summary = await this.evalSummary(i, { kind: 'eval', label: `GRPO step ${r.step}`, split: 'validation', n: validationN, baselines: false });
        this.inflight.curve.push({ step: r.step, summary });
        this.hooks.onCurve?.(i, r.step, summary);
      }
    };
    const save = this.autosave(i, s.steps);
    const G = s.groupSize;
    const onRollouts = this.hooks.onRollouts && ((step: number, trajs: readonly Trajectory[], rewards: readonly number[], kept: readonly boolean[]) => {
      const adv = groupAdvantages(rewards, G, loop.trainer.grpo).advantages;
      this.hooks.onRollouts!(i, step, trajs, { advantages: trajs.map((_, k) => (kept[Math.floor(k / G)] ? adv[k] : 0)), kept: [...kept] });
    });
    const resume: RlResume = { ...(save ? rlAutosave(save) : {}), ...(i === this.resumeStage ? this.opts.resume?.rl : {}), ...(onRollouts ? { onRollouts } : {}), ...(this.opts.shard ? { shard: this.opts.shard } : {}) };
    if (k === undefined) await this.withLora(i, () => runSyncRl(this.rt, this.w, this.family, this.tok, loop, onStep, undefined, resume));
    else await this.asyncGrpo(i, loop, k, onStep, resume, onRollouts);
    this.result.grpo.push({ stage: i, history: [...this.inflight.grpo], curve: [...this.inflight.curve], ...this.specialistTag(), streams: this.streams(i) });
  }

  /**
   * GRPO through the async coordinator: a trainer and rollout actors with their own weight copies
   * (in-process, opts.actorPool's Web Workers, or opts.rolloutPool's swarm); the result is loaded back
   * into the run's weights. Checkpoints and resume go through the trainer's own state (it must live in
   * this thread): after a resume the coordinator continues at the saved step, rollouts start again
   * from its slot.
   */
  private async asyncGrpo(i: number, loop: RlLoopConfig, k: number, onStep: (r: RlStepRecord) => Promise<void>, resume: RlResume, onRollouts?: NonNullable<RlResume['onRollouts']>): Promise<RlStepRecord[]> {
    // the actors copy the base weights (w.download()) and their own tokenizer: adapters would be lost
    if (this.w.lora || this.opts.tokenizer) throw new Error(`stage ${i} (grpo): async GRPO (staleness, rollout pools) runs full-parameter models with their preset tokenizer; a LoRA model trains with the synchronous loop (no staleness)`);
    const spec: RolloutActorSpec = { model: this.w.cfg, tasks: this.trainTasks, rollout: loop.rollout, taskSeed: loop.seed, ...(loop.randomValues ? { randomValues: loop.randomValues } : {}) };
    const initial = await this.w.download();
    const built = this.opts.rolloutPool
      ? await this.opts.rolloutPool({ stage: i, spec, trainer: loop.trainer, initial })
      : this.opts.actorPool ? await this.opts.actorPool({ spec, trainer: loop.trainer, initial }) : inProcessPool({ rt: this.rt, spec, trainer: loop.trainer, initial });
    const pool = onRollouts ? tapRollouts(built, (slot, trajs) => onRollouts(slot + 1, trajs, trajs.map((t) => t.reward.total), groupsToKeep(trajs.map((t) => t.reward.total), loop.rollout.groupSize))) : built;
    try {
      const local = pool.trainer.local;
      if (resume.from && !local) throw new Error(`stage ${i} (grpo): resuming needs the trainer in this thread; this actor pool keeps it elsewhere (resume without workers)`);
      if (resume.afterStep && !local) this.log(`stage ${i} (grpo): no checkpoints during this stage: its trainer runs in a worker (the next checkpoint is at the stage's end)`);
      if (resume.from && local) {
        await resume.restore?.(local.grpo);
        local.version = resume.from.version;
      }
      const history = await runAsyncRl(pool, {
        ...loop, staleness: k, rolloutActors: this.opts.rolloutActors ?? (this.opts.rolloutPool ? k + 1 : 1), hangTimeoutMs: 3_600_000,
        maxRestarts: this.opts.rolloutPool ? 20 : 2, from: resume.from ? { step: resume.from.step, slotsTrained: this.slotsTrained(i, resume.from.step) } : undefined,
      }, async (r) => {
        await onStep(r);
        if (local) await resume.afterStep?.({ step: r.step, version: r.version, refilled: 0 }, local.grpo);
      });
      loadWeightsInto(this.rt, this.w, await pool.trainer.snapshot());
      return history;
    } finally {
      await pool.close();
    }
  }

  /** The slots the restored steps of GRPO stage `i` trained (undefined: checkpoints from before 'async/slot' was recorded). */
  private slotsTrained(i: number, steps: number): number[] | undefined {
    if (this.inflight.stage !== i) return undefined;
    const slots = this.inflight.grpo.filter((r) => r.step <= steps).map((r) => r.metrics['async/slot']);
    return slots.length === steps && slots.every((x) => x !== undefined) ? slots : undefined;
  }

  private async evalSummary(i: number, s: EvalStageConfig): Promise<EvalSummary> {
    const seeds = s.seeds ?? [this.cfg.seed];
    const onEpisodes = this.hooks.onEvalEpisodes;
    const records = await evaluateSplit({
      mix: this.cfg.tasks, split: s.split, n: s.n, seeds, tokenizer: this.tok,
      generator: modelTurnGenerator(this.rt, this.w, GREEDY), rollout: rolloutConfig(this.cfg, 1, 0),
      onTrajectories: onEpisodes && ((taskSet, trajs) => onEpisodes(i, s.label, taskSet, trajs)),
    });
    return summarizeEval(s, this.cfg.tasks, seeds, records, s.baselines);
  }

  /** Tags a specialist's result entries with its task set. */
  private specialistTag(): { specialist?: string } {
    return this.specialist === null ? {} : { specialist: this.specialist };
  }

  /** A training stage's loop, with its LoRA (stageLora: the stage's own, else config.lora) on adapters (loraStage.ts; a resumed stage gets its checkpoint's). */
  private withLora<T>(i: number, train: () => Promise<T>): Promise<T> {
    const saved = i === this.resumeStage && this.specialist === null ? this.opts.resume?.lora : undefined;
    return trainWithLora(this.rt, this.w, stageLora(this.cfg, i), mixSeeds(this.cfg.seed, 0x10a4, this.stream(i, TRAINING_KINDS)), saved, train);
  }

  /** Whether the step now training trains LoRA adapters (the stage's, attached by withLora, or the given model's), not the weights: the backward skips frozen weights' gradients exactly then (compute.ts prices it). */
  private trainsLora(): boolean {
    return this.w.lora !== undefined;
  }

  /** Writes whole host weights (HF names) into the run's model. */
  private writeWeights(values: Map<string, Float32Array>): void {
    for (const p of this.w.table) {
      const v = values.get(p.name);
      if (!v) throw new Error(`pipeline: no tensor '${p.name}' in the weights to load`);
      this.w.write(p.name, v);
    }
  }

  /**
   * A training stage with `specialists`: for each task-mix entry (weight > 0), the stage's training
   * from the same start — the model as it is, or each entry's own specialist when an earlier stage
   * trained them — on that entry's task set alone. The run's model goes back to the start; the
   * specialists wait for the merge stage. Hooks see one stage of (specialists × steps) steps.
   */
  private async trainSpecialists(i: number, s: SftStageConfig | GrpoStageConfig): Promise<void> {
    const entries = specialistEntries(this.cfg);
    const base = this.pending?.base ?? (await this.w.download());
    const hooks = this.hooks;
    const models: Specialist[] = [];
    try {
      for (const [j, entry] of entries.entries()) {
        const label = specialistLabel(entry);
        this.writeWeights(this.pending ? this.pending.models[j].weights : base);
        this.family = mixFamily([entry]);
        this.trainTasks = [entry];
        this.specialist = label;
        this.inflight = { stage: -1, sft: [], grpo: [], curve: [] };
        this.hooks = specialistHooks(hooks, j * s.steps, `specialist ${j + 1}/${entries.length} (${label})`);
        this.log(`stage ${i} (${s.kind}): specialist ${j + 1}/${entries.length} on ${label}`);
        if (s.kind === 'sft') await this.sft(i, s);
        else await this.grpo(i, s);
        models.push({ label, entry, weights: await this.w.download() });
      }
    } finally {
      this.hooks = hooks;
      this.family = mixFamily(this.cfg.tasks);
      this.trainTasks = this.cfg.tasks;
      this.specialist = null;
    }
    this.pending = { stage: this.pending?.stage ?? i, base, models };
    this.writeWeights(base);
  }

  /** An eval stage while specialists wait for their merge: the same evaluation of each specialist. */
  private async evaluateSpecialists(i: number, s: EvalStageConfig): Promise<void> {
    const p = this.pending!;
    for (const m of p.models) {
      this.writeWeights(m.weights);
      await this.evaluate(i, { ...s, label: `${s.label} · specialist ${m.label}` });
    }
    this.writeWeights(p.base);
  }

  private async merge(i: number, s: MergeStageConfig): Promise<void> {
    const p = this.pending;
    if (!p) throw new Error(`stage ${i} (merge): no specialists to merge; tick specialists on an SFT or GRPO stage before it`);
    this.hooks.onStage?.(i, s, `merge: ${s.method} of ${p.models.length} specialists (${p.models.map((m) => m.label).join(', ')})`);
    if ((mergeMethod(s.method).needsImportance || this.opts.specialistFisher) && !p.fisher) p.fisher = await specialistFisher(this.rt, this.cfg, this.w.cfg, this.tok, p, this.log);
    this.hooks.onSpecialists?.(i, p);
    const { weights, record } = await mergeSpecialists(i, s, p, mergeStageSeed(this.cfg, i, this.opts.stagesBefore));
    this.writeWeights(weights);
    this.result.merges.push(record);
    this.pending = null;
    this.log(`merge (${record.method}): ${record.specialists.length} specialists, ${(record.parameters / 1e6).toFixed(2)} M parameters, weights ${record.options.weights.join(', ')}`);
  }

  private async evaluate(i: number, s: EvalStageConfig): Promise<void> {
    this.hooks.onStage?.(i, s, `${s.label}: greedy on ${s.n} ${s.split} tasks per task set${s.seeds ? ` × ${s.seeds.length} seeds` : ''}`);
    const summary = await this.evalSummary(i, s);
    this.result.evals.push(summary);
    this.log(`${s.label}: ${summary.headline}`);
    this.hooks.onEval?.(i, summary);
  }
}

/** The pool with every finished rollout job reported (slot = the trainer step it is meant for, 0-based). */
function tapRollouts(pool: ActorPool, see: (slot: number, trajs: Trajectory[]) => void): ActorPool {
  return wrapRollouts(pool, (rollout) => async (job) => {
    const r = await rollout(job);
    see(r.slot, r.trajectories);
    return r;
  });
}
