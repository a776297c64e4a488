// Autosave and exact resume for the training loops, on any checkpoint store: the small API a
// pipeline runner (npm run learn, the page) wires in.
//   saving:   sftAutosave / rlAutosave → the loops' afterStep hooks; every `every` steps and at the
//             stage's last step they capture the GPU state (the only part that stalls training) and
//             save it, then apply retention.
//   resuming: resumeFrom(reader) → initial weights and the loops' `from` / `restore` hooks.
import type { GpuRuntime } from '../gpu/runtime';
import type { RlResume } from '../train/rl/rlLoop';
import type { SftResume } from '../train/sft/sft';
import type { CheckpointBackend } from './backend';
import { applyRetention, type CheckpointReader, saveCheckpoint } from './checkpoint';
import type { TokenizerIdentity, ValidationScore } from './format';
import { LORA_GROUP, readCheckpointModel } from './modelCheckpoint';
import { captureTraining, readOptimizer, restoreReference, trainingContents } from './trainingCheckpoint';

/** What every checkpoint of a run says about the run. */
export interface RunDescription {
  preset: string;
  model: object;
  tokenizer: TokenizerIdentity;
  seed: number;
  pipelineConfig: unknown;
  /** The metrics so far (read at each save). */
  metrics: () => unknown;
  /** The latest validation score, for retention's "best" (optional). */
  validation?: () => ValidationScore | null;
}

export interface AutosaveOptions {
  store: CheckpointBackend;
  run: RunDescription;
  /** Save every this many steps (and at the stage's last step). */
  every: number;
  /** Steps of the stage (its last step is always saved). */
  totalSteps: number;
  /** Complete checkpoints kept (newest), plus the best by validation. */
  keepLast: number;
  /** Cursors saved beside the loop's own (e.g. which pipeline stage is running). */
  cursors?: Record<string, number>;
  /** Told after each save (id, bytes, seconds the capture stalled training, seconds writing). */
  onSaved?: (info: { id: string; bytes: number; captureSeconds: number; writeSeconds: number }) => void;
  /** Also save after this step when it returns true (a page being hidden asks for a save now). */
  saveRequested?: () => boolean;
}

function due(step: number, o: AutosaveOptions): boolean {
  return step === o.totalSteps || (o.every > 0 && step % o.every === 0) || o.saveRequested?.() === true;
}

async function save(o: AutosaveOptions, capture: Awaited<ReturnType<typeof captureTraining>>, captureSeconds: number, training: { stage: string; step: number; rng: Record<string, number>; cursors: Record<string, number | number[]> }, policyVersion: number): Promise<void> {
  const t0 = performance.now();
  const m = await saveCheckpoint(o.store, trainingContents(capture, {
    preset: o.run.preset, model: o.run.model, tokenizer: o.run.tokenizer, pipelineConfig: o.run.pipelineConfig, policyVersion,
    metrics: o.run.metrics(), validation: o.run.validation?.() ?? null, training: { ...training, seed: o.run.seed },
  }));
  await applyRetention(o.store, { keepLast: o.keepLast, keepBest: true });
  o.onSaved?.({ id: m.id, bytes: m.totalBytes, captureSeconds, writeSeconds: (performance.now() - t0) / 1000 });
}

export function sftAutosave(o: AutosaveOptions): Pick<SftResume, 'afterStep'> {
  return {
    afterStep: async (state, opt, w) => {
      if (!due(state.step, o)) return;
      const t0 = performance.now();
      const capture = await captureTraining({ w, opt });
      await save(o, capture, (performance.now() - t0) / 1000, { stage: 'sft', step: state.step, rng: { rows: state.sampler.rng }, cursors: { ...o.cursors, order: state.sampler.order, pos: state.sampler.pos } }, state.step);
    },
  };
}

export function rlAutosave(o: AutosaveOptions): Pick<RlResume, 'afterStep'> {
  return {
    afterStep: async (state, trainer) => {
      if (!due(state.step, o)) return;
      const t0 = performance.now();
      const capture = await captureTraining({ w: trainer.w, opt: trainer.opt, reference: trainer.reference });
      await save(o, capture, (performance.now() - t0) / 1000, { stage: 'rl', step: state.step, rng: {}, cursors: { ...o.cursors, refilled: state.refilled } }, state.version);
    },
  };
}

export interface ResumePoint {
  /** The checkpoint's weights: build the model from them. */
  initial: Map<string, Float32Array>;
  /** Its LoRA adapters (group 'lora', PEFT names) when the run trained adapters. */
  lora?: Map<string, Float32Array>;
  stage: 'sft' | 'rl';
  step: number;
  sft?: Pick<SftResume, 'from'>;
  rl?: Pick<RlResume, 'from' | 'restore'>;
  /** The metrics stored with the checkpoint. */
  metrics: unknown;
  /** Every cursor saved (the loop's and the caller's AutosaveOptions.cursors). */
  cursors: Record<string, number | number[]>;
}

/** What a loop needs to continue from a checkpoint (its weights, optimizer, reference, streams). */
export async function resumeFrom(rt: GpuRuntime, reader: CheckpointReader): Promise<ResumePoint> {
  const t = reader.manifest.training;
  if (t.stage !== 'sft' && t.stage !== 'rl') throw new Error(`checkpoint '${reader.id}' was saved in stage '${t.stage}'; only 'sft' and 'rl' checkpoints resume here`);
  const { params } = await readCheckpointModel(reader);
  const optimizer = await readOptimizer(reader);
  const metrics = await reader.blob('metrics');
  const lora = reader.tensors(LORA_GROUP).length > 0 ? { lora: await reader.group(LORA_GROUP) } : {};
  if (t.stage === 'sft') {
    const { order, pos } = t.cursors;
    if (!Array.isArray(order) || typeof pos !== 'number' || t.rng.rows === undefined) throw new Error(`checkpoint '${reader.id}': its SFT row-stream state is incomplete; it cannot resume exactly`);
    return { initial: params, ...lora, stage: 'sft', step: t.step, metrics, cursors: t.cursors, sft: { from: { state: { step: t.step, sampler: { rng: t.rng.rows, order, pos } }, optimizer } } };
  }
  const refilled = t.cursors.refilled;
  return {
    initial: params, ...lora, stage: 'rl', step: t.step, metrics, cursors: t.cursors,
    rl: {
      from: { step: t.step, version: reader.manifest.policyVersion, refilled: typeof refilled === 'number' ? refilled : 0 },
      restore: async (trainer) => {
        trainer.opt.restore(optimizer);
        if (trainer.reference) await restoreReference(rt, reader, trainer.reference);
      },
    },
  };
}
