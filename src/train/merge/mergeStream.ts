// Streaming merge: one tensor at a time from every model, merged, written, dropped — so merging the
// 0.6B preset needs (n + 2) copies of its largest tensor in memory, not n whole models. Sources and
// sinks are interfaces: HF folders on disk (src/storage/hfFolder.ts), Files in the page, or memory.
import type { MergeMethod, MergeOptions } from './types';

/** A model whose tensors can be read one by one (HF names, f32 values, HF shapes). */
export interface TensorSourceModel {
  /** For messages: a folder, a file name. */
  readonly label: string;
  names(): string[];
  shape(name: string): number[];
  read(name: string): Promise<Float32Array>;
}

/** Where merged tensors go: told every name and shape first (a safetensors header), then the values in that order. */
export interface TensorSink {
  begin(entries: { name: string; shape: number[] }[]): Promise<void>;
  write(name: string, data: Float32Array): Promise<void>;
  end(): Promise<void>;
}

export interface MergeJob {
  method: MergeMethod;
  options: MergeOptions;
  base: TensorSourceModel | null;
  models: TensorSourceModel[];
  /** Each model's diagonal Fisher, tensor for tensor (methods with needsImportance). */
  importance?: TensorSourceModel[];
  sink: TensorSink;
  onTensor?: (name: string, done: number, total: number) => void;
}

const shapeText = (s: number[]) => `[${s.join(', ')}]`;

/** Checks every model has every tensor of the reference with the same shape, listing each problem. */
export function checkCompatible(reference: TensorSourceModel, others: TensorSourceModel[]): void {
  const problems: string[] = [];
  const names = reference.names();
  for (const m of others) {
    const has = new Set(m.names());
    for (const name of names) {
      if (!has.has(name)) problems.push(`${m.label} has no tensor '${name}'`);
      else if (shapeText(m.shape(name)) !== shapeText(reference.shape(name))) {
        problems.push(`${m.label}: '${name}' is ${shapeText(m.shape(name))}, ${reference.label} has ${shapeText(reference.shape(name))}`);
      }
    }
    const extra = [...has].filter((n) => !names.includes(n));
    if (extra.length) problems.push(`${m.label} has ${extra.length} tensor(s) ${reference.label} lacks (e.g. '${extra[0]}')`);
  }
  if (problems.length) {
    throw new Error(`merge: the models are not the same architecture (${problems.length} problem${problems.length > 1 ? 's' : ''}): ${problems.slice(0, 8).join('; ')}${problems.length > 8 ? '; …' : ''}. Merging needs models fine-tuned from one base`);
  }
}

/** Runs a merge; resolves with the number of tensors and parameters written. */
export async function mergeModels(job: MergeJob): Promise<{ tensors: number; parameters: number }> {
  const { method, options, base, models, sink } = job;
  if (method.needsBase && !base) throw new Error(`merge: ${method.name} needs --base (task vectors are θ_i − θ_base)`);
  if (models.length === 0) throw new Error('merge: give at least one model (--models DIR…)');
  const importance = job.importance;
  if (method.needsImportance && importance?.length !== models.length) {
    throw new Error(`merge: ${method.name} needs each model's diagonal Fisher, computed from its task data on the GPU (${importance?.length ?? 0} given for ${models.length} models): use it in a pipeline merge stage (the page, npm run learn) or npm run merge-table, which compute them`);
  }
  const reference = base ?? models[0];
  checkCompatible(reference, base ? models : models.slice(1));
  if (method.needsImportance) checkCompatible(reference, importance!);
  const names = reference.names();
  await sink.begin(names.map((name) => ({ name, shape: reference.shape(name) })));
  let parameters = 0;
  for (const [i, name] of names.entries()) {
    const baseValues = base ? await base.read(name) : null;
    const values: Float32Array[] = [];
    for (const m of models) values.push(await m.read(name));
    const fisherValues = method.needsImportance ? await Promise.all(importance!.map((f) => f.read(name))) : undefined;
    const merged = method.merge({ name, base: baseValues, models: values, ...(fisherValues ? { importance: fisherValues } : {}) }, options);
    await sink.write(name, merged);
    parameters += merged.length;
    job.onTensor?.(name, i + 1, names.length);
  }
  await sink.end();
  return { tensors: names.length, parameters };
}

/** A source over tensors in memory (tests, and models already loaded in the page). */
export function memorySource(label: string, tensors: Map<string, { shape: number[]; data: Float32Array }>): TensorSourceModel {
  return {
    label,
    names: () => [...tensors.keys()],
    shape: (name) => tensors.get(name)!.shape,
    read: async (name) => {
      const t = tensors.get(name);
      if (!t) throw new Error(`${label}: no tensor '${name}'`);
      return t.data;
    },
  };
}

/** A sink collecting merged tensors in memory. */
export function memorySink(): TensorSink & { tensors: Map<string, { shape: number[]; data: Float32Array }> } {
  const tensors = new Map<string, { shape: number[]; data: Float32Array }>();
  const shapes = new Map<string, number[]>();
  return {
    tensors,
    begin: async (entries) => { for (const e of entries) shapes.set(e.name, e.shape); },
    write: async (name, data) => { tensors.set(name, { shape: shapes.get(name)!, data }); },
    end: async () => {},
  };
}
