// Resuming a pipeline run from its newest complete checkpoint: the checkpoint must be of this
// run's config (stage list, sizes, seed — the same flags or the same page settings), preset and
// tokenizer; anything else is refused with what differs, never half-loaded.
import type { GpuRuntime } from '../gpu/runtime';
import { type ModelConfig, PRESETS } from '../model/config';
import type { CheckpointBackend } from '../storage/backend';
import { loadLatestCheckpoint, openCheckpoint } from '../storage/checkpoint';
import { tokenizerIdentity } from '../storage/format';
import { type ResumePoint, resumeFrom } from '../storage/resume';
import type { PipelineConfig } from './config';
import { STAGE_STREAMS_VERSION } from './stageStream';
import { tokenizerForModel } from '../tokenizer';

export interface PipelineResumeFound {
  point: ResumePoint;
  /** The checkpoint's id, stage index and step (for "resuming from …" messages). */
  id: string;
  stage: number;
  step: number;
  /** Unfinished saves found and removed, and newer checkpoints passed over (with why). */
  notes: string[];
}

/**
 * The newest complete checkpoint of `cfg`'s run in `store` (a `model` other than the preset's: a
 * loaded one), ready for runPipeline's `resume`; null when the store has none. `id`: that checkpoint
 * instead (a data-parallel rank loads the one rank 0 chose; nothing else in the store is touched).
 */
export async function resumePipeline(rt: GpuRuntime, store: CheckpointBackend, cfg: PipelineConfig, model: ModelConfig = PRESETS[cfg.preset], id?: string): Promise<PipelineResumeFound | null> {
  const expect = { preset: cfg.preset, model, tokenizer: await tokenizerIdentity(await tokenizerForModel(model)) };
  const latest = id === undefined ? await loadLatestCheckpoint(store, expect) : { reader: await openCheckpoint(store, id, expect), unfinished: [], skipped: [] };
  const notes = [
    ...latest.unfinished.map((u) => `removed an unfinished save (${u.id})`),
    ...latest.skipped.map((s) => `passed over checkpoint ${s.id}: ${s.reason}`),
  ];
  if (!latest.reader) return null;
  const saved = latest.reader.manifest.pipelineConfig;
  if (JSON.stringify(saved) !== JSON.stringify(cfg)) {
    throw new Error(`checkpoint ${latest.reader.id} belongs to a run with another pipeline config; resume with the same settings (its config: ${JSON.stringify(saved)})`);
  }
  const point = await resumeFrom(rt, latest.reader);
  const stage = point.cursors.pipelineStage;
  if (typeof stage !== 'number') throw new Error(`checkpoint ${latest.reader.id} was not saved by the pipeline runner (no stage cursor): start a new run`);
  const streams = point.cursors.streams;
  if (streams !== STAGE_STREAMS_VERSION) {
    // before 2815bb9 a stage's streams followed its place in the stage list: resuming would go on with other data and samples than the run started with
    throw new Error(`checkpoint ${latest.reader.id} was saved by a TabForge that seeded the training streams another way (streams ${typeof streams === 'number' ? `version ${streams}` : 'unversioned, before 2815bb9'}; this one uses version ${STAGE_STREAMS_VERSION}), so the run cannot continue exactly and is not resumed. Its weights still load: export them (npm run export -- --checkpoint PATH --format hf --out DIR) and start a new run from them (npm run learn -- --init DIR …)`);
  }
  return { point, id: latest.reader.id, stage, step: point.step, notes };
}
