// The page's RunConfig: what a run trains (preset, seed, SFT and GRPO stage sizes). One JSON-serialisable
// object, validated with zod, encoded in share links (shareLink.ts) and sent to the GPU worker.
// DOM-free: the form (ui/configForm.ts) renders its fields from RUN_CONFIG_FIELDS.
import { z } from 'zod';

/** Presets the demo trains in the tab (byte tokenizer); qwen3-0.6b needs a loaded checkpoint. */
export const TRAINABLE_PRESETS = ['nano', 'tiny', 'small'] as const;
export type TrainablePreset = (typeof TRAINABLE_PRESETS)[number];

export interface RunConfig {
  /** Model size (ignored for the shape when a loaded model is used: the checkpoint decides). */
  preset: TrainablePreset;
  /** Seeds data, initial weights, task streams and sampling: the same config gives the same run. */
  seed: number;
  /** Format-only SFT optimizer steps. */
  sftSteps: number;
  /** GRPO steps. */
  rlSteps: number;
  /** GRPO tasks (groups) per step. */
  tasksPerStep: number;
  /** GRPO samples per task (G). */
  groupSize: number;
  /** Smoke run: 4 test tasks and no kernel self-check. */
  quick: boolean;
}

/**
 * The demo pipeline's defaults (DEFAULT_DEMO, what `npm run demo` trains), not a quick run. Written
 * out rather than imported so this module (and share links) stays free of the GPU code; a unit test
 * keeps the two equal.
 */
export const DEFAULT_RUN_CONFIG: RunConfig = { preset: 'nano', seed: 1, sftSteps: 150, rlSteps: 10, tasksPerStep: 8, groupSize: 8, quick: false };

/**
 * Rows × tokens the demo's pipeline trains at (trainingShape of demoConfig), and whether its
 * GRPO keeps a frozen reference copy (KL β > 0): what the page's fit estimate checks. Written out for
 * the same reason; a unit test keeps it equal to the recipe.
 */
export const DEMO_TRAINING_SHAPE = { batchSize: 8, seqLen: 768, referenceCopy: true };

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

export const RUN_CONFIG_FIELDS: FieldSpec[] = [
  { name: 'preset', label: 'Preset', hint: 'nano < 1 M parameters (CPU adapters), tiny ~5 M, small ~30 M', kind: 'select' },
  { name: 'seed', label: 'Seed', hint: 'data, init, tasks and sampling', kind: 'integer', min: 0, max: 2 ** 31 - 1 },
  { name: 'sftSteps', label: 'SFT steps', hint: 'format-only SFT optimizer steps', kind: 'integer', min: 0, max: 100_000 },
  { name: 'rlSteps', label: 'GRPO steps', hint: 'RL steps on the routing tasks', kind: 'integer', min: 0, max: 100_000 },
  { name: 'tasksPerStep', label: 'Tasks per step', hint: 'GRPO groups per step', kind: 'integer', min: 1, max: 256 },
  { name: 'groupSize', label: 'Group size', hint: 'samples per task (G ≥ 2)', kind: 'integer', min: 2, max: 64 },
  { name: 'quick', label: 'Quick run', hint: '4 test tasks, no self-check', kind: 'checkbox' },
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
  rlSteps: integerField('rlSteps'),
  tasksPerStep: integerField('tasksPerStep'),
  groupSize: integerField('groupSize'),
  quick: z.boolean({ error: 'must be true or false' }),
});

/** Field → message; 'form' holds problems that belong to no field. */
export type RunConfigErrors = Partial<Record<RunConfigField | 'form', string>>;

export type RunConfigResult = { ok: true; config: RunConfig } | { ok: false; errors: RunConfigErrors };

/** Validates any input (form values, a decoded share link); unknown keys are dropped. */
export function validateRunConfig(input: unknown): RunConfigResult {
  const parsed = runConfigSchema.safeParse(input);
  const errors: RunConfigErrors = {};
  if (parsed.success && Object.keys(errors).length === 0) return { ok: true, config: parsed.data };
  for (const issue of parsed.error?.issues ?? []) {
    const field = (issue.path[0] as RunConfigField | undefined) ?? 'form';
    errors[field] ??= issue.message;
  }
  return { ok: false, errors };
}

/** "seed: must be …; rlSteps: must be …" for messages outside the form. */
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
    rlSteps: String(config.rlSteps),
    tasksPerStep: String(config.tasksPerStep),
    groupSize: String(config.groupSize),
    quick: config.quick,
  };
}
