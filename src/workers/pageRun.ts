// The page's run, inside the GPU worker: optional kernel self-check → fit check → the pipeline config
// run by the general runner (runPipeline) with autosave to IndexedDB and exact resume → a few test
// episodes of the final model beside the expert's. Everything the page shows streams as
// PageRunEvents (stage phases, step metrics, GRPO samples and evaluation episodes, checkpoints, GPU
// memory). DOM-free: the same function runs under Playwright and `npm run demo`.
import { entryFamily, taskSetName } from '../envs/taskMix';
import { runEpisode } from '../eval/rollout';
import type { GpuRuntime } from '../gpu/runtime';
import { type ModelConfig, PRESETS } from '../model/config';
import { assertConfigFits, assertPresetFits } from '../model/fit';
import { GREEDY } from '../model/sampling';
import type { GpuWeights } from '../model/weights';
import { runSelfCheck } from '../ops/selfCheck';
import { type PipelineConfig, type StageConfig, stageRepeats } from '../pipeline/config';
import { restoreProgress } from '../pipeline/progress';
import { resumePipeline } from '../pipeline/resume';
import { runPipeline } from '../pipeline/runner';
import type { ActorPoolFactory, PipelineHooks, PipelineOptions } from '../pipeline/runnerTypes';
import { rolloutConfig, trainingShape } from '../pipeline/loopSettings';
import { IdbBackend } from '../storage/idbBackend';
import { tokenizerForModel } from '../tokenizer';
import { modelTurnGenerator } from '../train/rl/modelGenerator';
import { rolloutBatch } from '../train/rl/rollout';
import { mixSeeds } from '../util/seeds';
import { expertView, trajectoryView } from './episodeView';
import type { EpisodeView, PageRunEvent, PageRunRequest, PageRunResult, RestoredProgress } from './runEvents';

/** The user stopped the run (the worker reports code 'stopped'). */
export class RunStopped extends Error {}

export interface RunControl {
  /** Checked at every event: true ends the run at the next step, evaluation batch or stage. */
  stopRequested(): boolean;
  /** True once: save a checkpoint after the current step (the page was hidden). */
  takeSaveRequest(): boolean;
}

export interface LoadedModel {
  cfg: ModelConfig;
  params: Map<string, Float32Array>;
  source: string;
}

/** What a finished run leaves in the worker: its trained weights (playground, export) and tokenizer. */
export interface FinishedRun {
  result: PageRunResult;
  weights: GpuWeights;
  config: PipelineConfig;
}

export async function pageRun(rt: GpuRuntime, req: PageRunRequest, loaded: LoadedModel | null, emit: (e: PageRunEvent) => void, control: RunControl, actorPool?: ActorPoolFactory): Promise<FinishedRun> {
  const t0 = performance.now();
  const cfg = req.config;
  const send = (e: PageRunEvent) => {
    if (control.stopRequested()) throw new RunStopped(`run stopped by the user during ${e.kind === 'phase' ? e.phase : e.kind}`);
    emit(e);
  };
  const phase = (stage: number | null, name: string, detail: string) => send({ kind: 'phase', stage, phase: name, detail, at: Date.now() });
  const model: ModelConfig = loaded?.cfg ?? PRESETS[cfg.preset];
  const modelLabel = loaded ? `loaded: ${loaded.source}` : `preset ${cfg.preset}`;
  if (!loaded && cfg.preset === 'qwen3-0.6b') throw new Error('preset qwen3-0.6b starts from its real weights: load them under "Load model" (config.json + model.safetensors) and tick "start runs from the loaded model"');

  let selfCheckFailures = 0;
  if (req.selfCheck) {
    phase(null, 'self-check', 'kernels against the float64 reference');
    const results = await runSelfCheck(rt, { onResult: (r) => send({ kind: 'check', name: r.name, ok: r.ok, relErr: r.relErr }) });
    selfCheckFailures = results.filter((r) => !r.ok).length;
    if (selfCheckFailures > 0) throw new Error(`${selfCheckFailures} kernel self-check(s) failed on this adapter; the run log says which`);
  }

  const shape = trainingShape(cfg);
  const memory = { batch: shape.batch, seqLen: shape.seqLen, optimizer: 'adamw' as const, weightDtype: 'f32' as const, referenceCopy: shape.referenceCopy };
  const fit = loaded ? assertConfigFits(rt.ctx, model, memory, { label: `the loaded model (${loaded.source})` }) : assertPresetFits(rt.ctx, cfg.preset, memory);
  phase(null, 'fit', fit.summary);

  const opts: PipelineOptions = { model, actorPool };
  if (loaded) opts.initial = loaded.params;
  const at = { stage: 0, step: 0 }; // where the run is (checkpoint events name it)
  if (req.checkpoints) {
    const store = await IdbBackend.open(req.checkpoints.dbName);
    opts.checkpoints = {
      store, every: req.checkpoints.every, keepLast: req.checkpoints.keepLast, saveRequested: () => control.takeSaveRequest(),
      onSaved: (s) => send({ kind: 'saved', id: s.id, bytes: s.bytes, stage: at.stage, step: at.step, seconds: s.captureSeconds + s.writeSeconds }),
    };
    if (req.resume) {
      phase(null, 'resume', `looking for the newest checkpoint in ${store.description}`);
      const found = await resumePipeline(rt, store, cfg, model);
      if (!found) throw new Error(`no complete checkpoint of this run is stored in ${store.description}: start it again instead`);
      opts.resume = found.point;
      opts.initial = found.point.initial;
      at.stage = found.stage;
      for (const note of found.notes) send({ kind: 'log', line: note });
      send({ kind: 'resumed', checkpoint: found.id, stage: found.stage, step: found.step, restored: restoredFrom(cfg, found.point.metrics) });
    }
  }

  const tok = await tokenizerForModel(model);
  const memoryNow = () => send({ kind: 'memory', bytes: rt.pool.getStats().heldBytes, at: Date.now() });
  const announceData = (i: number) => {
    const s = cfg.stages[i];
    if (s?.kind === 'sft') phase(i, 'data', s.data.source === 'synthetic' ? `SFT data: playing the experts until ${s.data.examples} verified conversations are found` : `SFT data: reading ${s.data.path}`);
  };
  const stageDone = (i: number) => announceData(i + 1);
  const keptPerEval = new Map<string, number>();
  const repeats = stageRepeats(cfg); // a specialist stage reports (specialists × steps) steps
  const evalsDone = new Map<number, number>();
  const hooks: PipelineHooks = {
    log: (line) => send({ kind: 'log', line }),
    onStage: (i, s, detail) => {
      at.stage = i;
      at.step = 0;
      const first = s.kind === 'sft' || s.kind === 'grpo' ? '; the first step also compiles the GPU kernels, so it takes longer' : '';
      phase(i, s.kind, `${detail}${first}`);
    },
    onSftData: (i, r) => send({ kind: 'log', line: `stage ${i} SFT data: ${r.docs} conversations${r.generated ? ` (${r.generated} expert episodes, ${r.rejected ?? 0} rejected)` : ''}, mean ${r.meanTokens.toFixed(0)} tokens, ${r.tooLong} too long for the context` }),
    onSft: (i, m) => {
      at.step = m.step;
      const s = cfg.stages[i] as Extract<StageConfig, { kind: 'sft' }>;
      const total = s.steps * repeats[i];
      send({ kind: 'sft', stage: i, step: m.step, totalSteps: total, loss: m.loss, lr: m.lr, gradNorm: m.gradNorm, tokensPerSec: m.tokensPerSec, skipped: m.skipped, at: Date.now() });
      memoryNow();
      if (m.step === total) stageDone(i);
    },
    onRlStep: (i, r) => {
      at.step = r.step;
      const s = cfg.stages[i] as Extract<StageConfig, { kind: 'grpo' }>;
      const total = s.steps * repeats[i];
      send({ kind: 'grpo', stage: i, step: r.step, totalSteps: total, skipped: r.skipped, ...(r.reason === undefined ? {} : { reason: r.reason }), metrics: r.metrics, at: Date.now() });
      memoryNow();
      if (r.step === total) stageDone(i);
    },
    onRollouts: (i, step, trajs, info) => {
      const taskSet = cfg.tasks.length === 1 ? taskSetName(cfg.tasks[0]) : 'mix';
      const keep = trajs.slice(0, req.episodesPerStep);
      const episodes = keep.map((t, k) => trajectoryView(t, { source: 'rollout', stage: i, step, label: `GRPO step ${step}`, taskSet: taskSet === 'mix' ? t.family : taskSet }, tok.imEndId, { advantage: info.advantages[k], groupKept: info.kept[Math.floor(k / (trajs.length / info.kept.length))] }));
      send({ kind: 'episodes', episodes, dropped: trajs.length - keep.length });
    },
    onEvalEpisodes: (i, label, taskSet, trajs) => {
      const key = `${i}:${label}:${taskSet}`;
      const room = Math.max(0, req.episodesPerStep - (keptPerEval.get(key) ?? 0));
      const keep = trajs.slice(0, room);
      keptPerEval.set(key, (keptPerEval.get(key) ?? 0) + keep.length);
      const step = /^GRPO step (\d+)$/.exec(label)?.[1];
      send({ kind: 'episodes', episodes: keep.map((t) => trajectoryView(t, { source: 'eval', stage: i, step: step ? Number(step) : 0, label, taskSet }, tok.imEndId)), dropped: trajs.length - keep.length });
    },
    onEval: (i, summary) => {
      send({ kind: 'eval', stage: i, summary });
      evalsDone.set(i, (evalsDone.get(i) ?? 0) + 1);
      if (evalsDone.get(i) === repeats[i]) stageDone(i); // (one summary per specialist before a merge)
    },
    onCurve: (i, step, summary) => send({ kind: 'curve', stage: i, step, summary }),
  };
  announceData(at.stage);
  const result = await runPipeline(rt, cfg, hooks, opts);
  const w = result.weights;
  try {
    if (req.samples > 0) await sampleEpisodes(rt, w, cfg, req.samples, (e) => send({ kind: 'episodes', episodes: e, dropped: 0 }), (d) => phase(null, 'samples', d));
    const out: PageRunResult = {
      model: modelLabel, parameters: fit.parameters, evals: result.evals, stageSeconds: result.seconds, seconds: (performance.now() - t0) / 1000, selfCheckFailures,
    };
    send({ kind: 'done', result: out });
    return { result: out, weights: w, config: cfg };
  } catch (e) {
    w.destroy();
    throw e;
  }
}

/** The charts' history from a checkpoint's metrics (pipeline/progress.ts), so a resumed run shows the whole run. */
function restoredFrom(cfg: PipelineConfig, metrics: unknown): RestoredProgress {
  const p = restoreProgress(metrics);
  const sftStages = [...p.sft, ...(p.inflight.sft.length ? [{ stage: p.inflight.stage, history: p.inflight.sft }] : [])];
  const grpoStages = [...p.grpo, ...(p.inflight.grpo.length ? [{ stage: p.inflight.stage, history: p.inflight.grpo }] : [])];
  return {
    sft: sftStages.map((s) => ({ stage: s.stage, steps: s.history.map((m) => ({ step: m.step, loss: m.loss, lr: m.lr, gradNorm: m.gradNorm, tokensPerSec: m.tokensPerSec })) })),
    grpo: grpoStages.flatMap((s) => s.history.map((r) => ({ stage: s.stage, step: r.step, totalSteps: r.step, skipped: r.skipped, metrics: r.metrics }))),
    // the k-th summary is the k-th eval stage's (eval stages run in config order; one per specialist before a merge)
    evals: p.evals.map((summary, k) => ({ stage: cfg.stages.flatMap((s, i) => (s.kind === 'eval' ? Array<number>(stageRepeats(cfg)[i]).fill(i) : []))[k] ?? -1, summary })),
  };
}

/** Test tasks 0 … k−1 of the first task set: the final model's episodes (greedy), and the expert's on the same tasks. */
async function sampleEpisodes(rt: GpuRuntime, w: GpuWeights, cfg: PipelineConfig, k: number, out: (e: EpisodeView[]) => void, phase: (detail: string) => void): Promise<void> {
  const entry = cfg.tasks[0];
  const family = entryFamily(entry);
  const taskSet = taskSetName(entry);
  phase(`${k} test episode${k === 1 ? '' : 's'} of ${taskSet} from the final model, and the expert's on the same tasks`);
  const tasks = Array.from({ length: k }, (_, i) => family.generateTask(cfg.seed, i, 'test'));
  const tok = await tokenizerForModel(w.cfg);
  const trajs = await rolloutBatch({ family, tasks, tokenizer: tok, generator: modelTurnGenerator(rt, w, GREEDY), config: rolloutConfig(cfg, 1, 0), seed: cfg.seed, policyVersion: 0 });
  out(trajs.map((t) => trajectoryView(t, { source: 'sample', stage: -1, step: 0, label: 'final model', taskSet }, tok.imEndId)));
  const experts: EpisodeView[] = [];
  for (const [i, task] of tasks.entries()) {
    const seed = mixSeeds(cfg.seed, 0xe4e7, i);
    experts.push(expertView(await runEpisode(family, task, family.expertPolicy(task, seed), { seed }), { source: 'expert', stage: -1, step: 0, label: 'expert', taskSet }, i));
  }
  out(experts);
}
