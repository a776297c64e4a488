// Before allocating a model for training: print what it is and what it needs, and refuse with a
// message naming the limit when the device cannot hold it (nothing allocated, nothing lost).
import type { GpuContext } from '../gpu/device';
import { GpuError } from '../gpu/errors';
import { type ModelConfig, PRESETS, type PresetName } from './config';
import { checkFits, estimateMemory, type MemoryOptions } from './memoryPlan';
import { countParameters, formatBytes } from './parameters';

export interface FitReport {
  parameters: number;
  /** One line for logs: parameter count and the memory breakdown. */
  summary: string;
}

/** Throws GpuError('limit-too-small') when the preset cannot train on this device with these options. */
export function assertPresetFits(ctx: Pick<GpuContext, 'limits'>, preset: PresetName, options: MemoryOptions): FitReport {
  const cfg = PRESETS[preset];
  const names = Object.keys(PRESETS) as PresetName[];
  const smaller = names.slice(0, names.indexOf(preset)).filter((n) => PRESETS[n].tokenizer === cfg.tokenizer || n === 'nano');
  return assertConfigFits(ctx, cfg, options, { label: `preset ${preset}`, alternatives: smaller.length ? [smaller[smaller.length - 1]] : [] });
}

/**
 * The same check for any model config (e.g. one the user loaded): throws GpuError('limit-too-small')
 * naming the limit, the buffer and what to do; `label` names the model in the messages.
 */
export function assertConfigFits(ctx: Pick<GpuContext, 'limits'>, cfg: ModelConfig, options: MemoryOptions, context: { label: string; alternatives?: string[] }): FitReport {
  const est = estimateMemory(cfg, options, ctx.limits);
  const parameters = countParameters(cfg);
  const summary =
    `${context.label}: ${(parameters / 1e6).toFixed(2)} M parameters; training at batch ${options.batch} × ${options.seqLen} tokens needs ` +
    `${formatBytes(est.totalBytes)} (weights ${formatBytes(est.weightsBytes)}, gradients ${formatBytes(est.gradsBytes)}, ` +
    `optimizer ${formatBytes(est.optimizerBytes)}, activations ${formatBytes(est.activationsBytes)}); largest buffer ${formatBytes(est.largestBufferBytes)}`;
  const problem = checkFits(est, { maxBufferSize: ctx.limits.maxBufferSize, maxStorageBufferBindingSize: ctx.limits.maxStorageBufferBindingSize }, context);
  if (problem) throw new GpuError('limit-too-small', `${summary}. It does not fit this device: ${problem}`);
  return { parameters, summary };
}
