// The page's RunConfig: what a run trains (preset, seed, SFT hyper-parameters). One JSON-serialisable
// object, validated with zod, encoded in share links (shareLink.ts) and sent to the GPU worker.
// DOM-free: the form (ui/configForm.ts) renders its fields from RUN_CONFIG_FIELDS.
import { z } from 'zod';
import { PRESETS } from '../model/config';

/** Presets the demo trains in the tab (byte tokenizer); qwen3-0.6b needs a loaded checkpoint. */
export const TRAINABLE_PRESETS = ['nano', 'tiny', 'small'] as const;
export type TrainablePreset = (typeof TRAINABLE_PRESETS)[number];

export interface RunConfig {
  /** Model size (ignored for the shape when a loaded model is used: the checkpoint decides). */
  preset: TrainablePreset;
  /** Seeds data, initial weights and shuffling: the same config gives the same run. */
  seed: number;
  /** SFT optimizer steps. */
  sftSteps: number;
  /** Conversations per step (B). */
  batchSize: number;
  /** Tokens per row (T); a conversation longer than this is an error. */
  seqLen: number;
  /** Peak learning rate (warm-up then cosine decay). */
  lr: number;
  /** Smoke run: 8 training / 2 held-out conversations and no kernel self-check. */
  quick: boolean;
}

/**
 * The demo pipeline's defaults (DEFAULT_DEMO, what `npm run demo` trains), not a quick run. Written
 * out rather than imported so this module (and share links) stays free of the GPU code; a unit test
 * keeps the two equal.
 */
export const DEFAULT_RUN_CONFIG: RunConfig = { preset: 'nano', seed: 1, sftSteps: 150, batchSize: 4, seqLen: 384, lr: 8e-3, quick: false };

export type RunConfigField = keyof RunConfig;

/** How the form shows each field; numeric bounds are the schema's. */
export interface FieldSpec {
  name: RunConfigField;
  label: string;
  hint: string;
  kind: 'select' | 'integer' | 'number' | 'checkbox';
  min?: number;
  max?: number;
}

export const SEQ_LEN_MIN = 64;

export const RUN_CONFIG_FIELDS: FieldSpec[] = [
  { name: 'preset', label: 'Preset', hint: 'nano < 1 M parameters (CPU adapters), tiny ~5 M, small ~30 M', kind: 'select' },
  { name: 'seed', label: 'Seed', hint: 'data, init and shuffling', kind: 'integer', min: 0, max: 2 ** 31 - 1 },
  { name: 'sftSteps', label: 'SFT steps', hint: 'optimizer steps', kind: 'integer', min: 1, max: 100_000 },
  { name: 'batchSize', label: 'Batch size', hint: 'conversations per step', kind: 'integer', min: 1, max: 256 },
  { name: 'seqLen', label: 'Seq len', hint: 'tokens per row; every conversation must fit', kind: 'integer', min: SEQ_LEN_MIN },
  { name: 'lr', label: 'Learning rate', hint: 'peak, e.g. 8e-3', kind: 'number', min: 1e-7, max: 1 },
  { name: 'quick', label: 'Quick run', hint: '8 training / 2 held-out conversations, no self-check', kind: 'checkbox' },
];

const spec = (name: RunConfigField) => RUN_CONFIG_FIELDS.find((f) => f.name === name)!;

function integerField(name: RunConfigField) {
  const { min = 0, max = Number.MAX_SAFE_INTEGER } = spec(name);
  return z.number({ error: (i) => (i.input === undefined ? 'is required' : 'must be a number') })
    .int({ error: 'must be a whole number' })
    .min(min, { error: `must be at least ${min}` })
    .max(max, { error: `must be at most ${max}` });
}

export const runConfigSchema = z.object({
  preset: z.enum(TRAINABLE_PRESETS, { error: `must be one of ${TRAINABLE_PRESETS.join(', ')}` }),
  seed: integerField('seed'),
  sftSteps: integerField('sftSteps'),
  batchSize: integerField('batchSize'),
  seqLen: integerField('seqLen'),
  lr: z.number({ error: (i) => (i.input === undefined ? 'is required' : 'must be a number, e.g. 3e-3') })
    .refine(Number.isFinite, { error: 'must be a finite number' })
    .refine((v) => v >= spec('lr').min! && v <= spec('lr').max!, { error: `must be between ${spec('lr').min} and ${spec('lr').max}` }),
  quick: z.boolean({ error: 'must be true or false' }),
});

/** Checks across fields; run even when other fields are invalid, so every message shows at once. */
function crossFieldErrors(input: unknown): RunConfigErrors {
  const { preset, seqLen } = (input ?? {}) as { preset?: unknown; seqLen?: unknown };
  const max = typeof preset === 'string' && (TRAINABLE_PRESETS as readonly string[]).includes(preset) ? PRESETS[preset as TrainablePreset].maxPositionEmbeddings : undefined;
  if (max !== undefined && typeof seqLen === 'number' && seqLen > max) {
    return { seqLen: `must be at most ${max} for preset ${preset} (its context length)` };
  }
  return {};
}

/** Field → message; 'form' holds problems that belong to no field. */
export type RunConfigErrors = Partial<Record<RunConfigField | 'form', string>>;

export type RunConfigResult = { ok: true; config: RunConfig } | { ok: false; errors: RunConfigErrors };

/** Validates any input (form values, a decoded share link); unknown keys are dropped. */
export function validateRunConfig(input: unknown): RunConfigResult {
  const parsed = runConfigSchema.safeParse(input);
  const errors: RunConfigErrors = crossFieldErrors(input);
  if (parsed.success && Object.keys(errors).length === 0) return { ok: true, config: parsed.data };
  for (const issue of parsed.error?.issues ?? []) {
    const field = (issue.path[0] as RunConfigField | undefined) ?? 'form';
    errors[field] ??= issue.message;
  }
  return { ok: false, errors };
}

/** "seqLen: must be …; lr: must be …" for messages outside the form. */
export function describeErrors(errors: RunConfigErrors): string {
  return Object.entries(errors).map(([k, v]) => (k === 'form' ? v : `${k} ${v}`)).join('; ');
}

/**
 * Form text → RunConfig input: numbers parsed strictly (Number('') would be 0, '12abc' NaN), so
 * the schema's messages apply to what the person typed. Empty fields become undefined ("is required").
 */
export function fromFormValues(values: Record<RunConfigField, string | boolean>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of RUN_CONFIG_FIELDS) {
    const v = values[f.name];
    if (f.kind === 'checkbox') out[f.name] = v === true;
    else if (f.kind === 'select') out[f.name] = v;
    else {
      const text = String(v ?? '').trim();
      out[f.name] = text === '' ? undefined : Number(text);
    }
  }
  return out;
}

/** RunConfig → the text each form field shows. */
export function toFormValues(config: RunConfig): Record<RunConfigField, string | boolean> {
  return {
    preset: config.preset,
    seed: String(config.seed),
    sftSteps: String(config.sftSteps),
    batchSize: String(config.batchSize),
    seqLen: String(config.seqLen),
    lr: String(config.lr),
    quick: config.quick,
  };
}
