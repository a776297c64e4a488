// Flags of `npm run context-stats -- --rollout` (rollout cost per curriculum level), checked before
// the GPU starts: every bad value names the flag and what to give instead.
import { CURRICULA } from '../../src/envs/taskSets';
import { PRESETS, type PresetName } from '../../src/model/config';
import type { RolloutStatsOptions } from '../../src/pipeline/rolloutStats';
import { integerFlag } from '../../src/util/flagValues';

/** The multi-turn families' levels, smallest first. */
export const ROLLOUT_LEVELS: RolloutStatsOptions['levels'] = (['service', 'coding'] as const).flatMap((family) => CURRICULA[family].map((level) => ({ family, level })));

const count = (flag: string, value: string | undefined, fallback: number, max: number): number => (value === undefined ? fallback : integerFlag(flag, value, { min: 1, max }));

/** Options of the rollout table; throws a message naming the bad flag. */
export function parseRolloutArgs(values: { seed?: string; tasks?: string; group?: string; preset?: string }): RolloutStatsOptions {
  const seed = values.seed === undefined ? 1 : integerFlag('seed', values.seed);
  const preset = (values.preset ?? 'nano-q') as PresetName;
  // the trimmed-Qwen3 presets: their 6 144 positions hold every level's context (byte presets do not)
  const fits = (Object.keys(PRESETS) as PresetName[]).filter((p) => PRESETS[p].tokenizer === 'qwen3-trimmed');
  if (!fits.includes(preset)) throw new Error(`--preset takes one of ${fits.join(', ')} (every level's context fits their positions), got '${values.preset}'`);
  return { preset, seed, tasks: count('tasks', values.tasks, 2, 16), group: count('group', values.group, 2, 16), levels: ROLLOUT_LEVELS };
}
