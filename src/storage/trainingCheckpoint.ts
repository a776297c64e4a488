// Training checkpoints: what a loop needs to continue bit-exactly, between GPU state and the
// checkpoint format. Saving is two steps so training stalls only for the first:
//   captureTraining: GPU → host copies of weights ('model'), adapters ('lora'), AdamW moments
//                    ('adam.m', 'adam.v') and the frozen KL reference ('reference');
//   saveCheckpoint:  hashing and writing those copies (may run while the next steps train).
// Restoring puts them back into freshly built GpuWeights / AdamWState / GRPO trainer.
import type { GpuRuntime } from '../gpu/runtime';
import { isPackedF16 } from '../ops/matmulPackedF16';
import type { GpuWeights } from '../model/weights';
import type { AdamWSnapshot, AdamWState } from '../train/optimizerState';
import type { CheckpointContents, CheckpointReader, TensorSource } from './checkpoint';
import { LORA_GROUP, MODEL_GROUP } from './modelCheckpoint';

export const ADAM_M = 'adam.m';
export const ADAM_V = 'adam.v';
export const REFERENCE_GROUP = 'reference';
/** The frozen adapter copy of a LoRA model's reference (its base is the model's own, frozen). */
export const REFERENCE_LORA_GROUP = 'reference.lora';

export interface TrainingParts {
  w: GpuWeights;
  opt?: AdamWState | null;
  /** GRPO's frozen reference model (KL term). */
  reference?: GpuWeights | null;
}

const flat = (group: string, m: Map<string, Float32Array>): TensorSource[] => [...m].map(([name, data]) => ({ group, name, shape: [data.length], data }));

/** Host copies of everything trainable and its optimizer state; await it before the next step changes them. */
export async function captureTraining(parts: TrainingParts): Promise<{ tensors: TensorSource[]; optimizerStep: number | null }> {
  const tensors = flat(MODEL_GROUP, await parts.w.download());
  if (parts.w.lora) tensors.push(...flat(LORA_GROUP, await parts.w.lora.download()));
  let optimizerStep: number | null = null;
  if (parts.opt) {
    const s = await parts.opt.snapshot();
    tensors.push(...flat(ADAM_M, s.m), ...flat(ADAM_V, s.v));
    optimizerStep = s.step;
  }
  // a LoRA reference shares the frozen base (already in 'model'): only its frozen adapter copy is its own
  if (parts.reference?.lora) tensors.push(...flat(REFERENCE_LORA_GROUP, await parts.reference.lora.download()));
  else if (parts.reference) tensors.push(...flat(REFERENCE_GROUP, await parts.reference.download()));
  return { tensors, optimizerStep };
}

/** Writes a group of the checkpoint into GPU tensors by name; every tensor must be there. */
async function restoreGroup(rt: GpuRuntime, reader: CheckpointReader, group: string, targets: Map<string, import('../gpu/tensor').Tensor>, what: string): Promise<void> {
  for (const [name, t] of targets) {
    if (isPackedF16(t)) continue; // a frozen f16 base: built from the checkpoint's 'model' group already
    if (!reader.has(group, name)) throw new Error(`checkpoint '${reader.id}' has no ${what} '${name}' (group '${group}'): it belongs to another model or training setup`);
    const data = await reader.f32(group, name);
    if (data.length !== t.size) throw new Error(`checkpoint '${reader.id}': ${what} '${name}' has ${data.length} values, the model ${t.size}`);
    rt.write(t, data);
  }
}

/** The base weights w stores in f32, by name (a frozen f16 base is skipped, as restoreGroup does). */
function writableBase(w: GpuWeights): Map<string, import('../gpu/tensor').Tensor> {
  return new Map(w.table.filter((p) => !w.parts(p.name).some((part) => isPackedF16(part.tensor))).map((p) => [p.name, w.parts(p.name)[0].tensor]));
}

/** Writes a group's base weights into w by name (any row parts: GpuWeights.write). */
async function restoreBase(reader: CheckpointReader, group: string, w: GpuWeights, what: string): Promise<void> {
  for (const [name, t] of writableBase(w)) {
    if (!reader.has(group, name)) throw new Error(`checkpoint '${reader.id}' has no ${what} '${name}' (group '${group}'): it belongs to another model or training setup`);
    const data = await reader.f32(group, name);
    const size = w.parts(name).reduce((s, p) => s + p.rows, 0) * (t.shape.length === 2 ? t.shape[1] : 1);
    if (data.length !== size) throw new Error(`checkpoint '${reader.id}': ${what} '${name}' has ${data.length} values, the model ${size}`);
    w.write(name, data);
  }
}

/** Puts the checkpoint's weights (and adapters) into w. */
export async function restoreWeights(rt: GpuRuntime, reader: CheckpointReader, w: GpuWeights): Promise<void> {
  await restoreBase(reader, MODEL_GROUP, w, 'weight');
  if (w.lora) await restoreGroup(rt, reader, LORA_GROUP, w.lora.params, 'LoRA adapter');
}

/** The AdamW snapshot stored in a checkpoint (restore with opt.restore). */
export async function readOptimizer(reader: CheckpointReader): Promise<AdamWSnapshot> {
  const step = reader.manifest.training.optimizerStep;
  if (step === null) throw new Error(`checkpoint '${reader.id}' has no optimizer state (saved for inference or export): it cannot resume training exactly`);
  return { step, m: await reader.group(ADAM_M), v: await reader.group(ADAM_V) };
}

export async function restoreReference(rt: GpuRuntime, reader: CheckpointReader, reference: GpuWeights): Promise<void> {
  if (reference.lora) await restoreGroup(rt, reader, REFERENCE_LORA_GROUP, reference.lora.params, 'KL reference adapter');
  else await restoreBase(reader, REFERENCE_GROUP, reference, 'KL reference weight');
}

/** Contents of a training checkpoint from a capture plus the run's description (see CheckpointContents). */
export function trainingContents(capture: { tensors: TensorSource[]; optimizerStep: number | null }, run: Omit<CheckpointContents, 'tensors' | 'training'> & { training: Omit<CheckpointContents['training'], 'optimizerStep'> }): CheckpointContents {
  return { ...run, training: { ...run.training, optimizerStep: capture.optimizerStep }, tensors: capture.tensors };
}
