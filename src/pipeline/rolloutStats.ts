// Rollout cost per curriculum level (`npm run context-stats -- --rollout`): sampled GRPO rollouts of a
// seeded, untrained model through the real rollout code (train/rl/rollout.ts rolloutBatch with the
// model's batched KV-cache generator), with each level's context (TASK_SET_CONTEXT: max new tokens
// per turn, turns, total tokens) at temperature 1, as a GRPO step samples them. An untrained model
// rarely ends an episode early, so these are near the longest episodes a level allows: an upper
// bound on what a GRPO step of that level costs before the policy learns to finish.
import type { EnvFamily, TaskBase } from '../envs/types';
import { taskSet } from '../envs/taskSets';
import type { GpuRuntime } from '../gpu/runtime';
import { PRESETS, type PresetName } from '../model/config';
import { GpuWeights, initialWeights } from '../model/weights';
import { type Tokenizer, tokenizerForModel } from '../tokenizer';
import { modelTurnGenerator } from '../train/rl/modelGenerator';
import { tasksForStep } from '../train/rl/rlLoop';
import { DEFAULT_ROLLOUT, rolloutBatch, type RolloutConfig, type TurnGenerator } from '../train/rl/rollout';
import type { Trajectory } from '../train/rl/trajectory';
import { mixSeeds } from '../util/seeds';
import { TASK_SET_CONTEXT } from './presets';

export interface RolloutStatsOptions {
  preset: PresetName;
  /** Seeds the weights, the task stream and the sampling. */
  seed: number;
  /** Tasks per level (GRPO groups) and samples per task: tasks × group episodes per level, one batch. */
  tasks: number;
  group: number;
  /** Task sets, smallest first. */
  levels: readonly { family: string; level: string }[];
}

/** One level's row: per-episode means over its episodes and the batch's generation rate. */
export interface RolloutLevelStats {
  /** family/level. */
  taskSet: string;
  episodes: number;
  /** Limits the rollouts ran with (the level's TASK_SET_CONTEXT). */
  maxNewTokensPerTurn: number;
  maxTurns: number;
  maxTotalTokens: number;
  turnsPerEpisode: number;
  /** Sampled (loss-mask 1) tokens per episode. */
  policyTokensPerEpisode: number;
  /** Every token of the episode: prompt, turns, tool and user replies. */
  totalTokensPerEpisode: number;
  /** Generated tokens / wall seconds of the whole batch (env steps and tokenising included). */
  tokensPerSecond: number;
  seconds: number;
  /** Episodes per end reason (done, max-turns, max-tokens, env-error). */
  ends: Record<string, number>;
}

/** The rollout config a GRPO step of this level uses (runner.ts rolloutConfig at temperature 1). */
export function levelRolloutConfig(level: string, groupSize: number): RolloutConfig {
  const c = TASK_SET_CONTEXT[level];
  if (!c) throw new Error(`no context is measured for task set level ${level}: add it to TASK_SET_CONTEXT`);
  return { ...DEFAULT_ROLLOUT, groupSize, temperature: 1, maxTurns: c.maxTurns, maxNewTokensPerTurn: c.maxNewTokensPerTurn, maxTotalTokens: c.maxTotalTokens };
}

/** Row of one level from its trajectories and the batch's wall time. */
export function levelStats(name: string, config: RolloutConfig, trajs: readonly Trajectory[], seconds: number): RolloutLevelStats {
  const n = Math.max(1, trajs.length);
  const sum = (f: (t: Trajectory) => number) => trajs.reduce((a, t) => a + f(t), 0);
  const ends: Record<string, number> = {};
  for (const t of trajs) ends[t.end] = (ends[t.end] ?? 0) + 1;
  const generated = sum((t) => t.responseTokens);
  return {
    taskSet: name, episodes: trajs.length,
    maxNewTokensPerTurn: config.maxNewTokensPerTurn, maxTurns: config.maxTurns, maxTotalTokens: config.maxTotalTokens,
    turnsPerEpisode: sum((t) => t.turns) / n, policyTokensPerEpisode: generated / n, totalTokensPerEpisode: sum((t) => t.ids.length) / n,
    tokensPerSecond: seconds > 0 ? generated / seconds : 0, seconds, ends,
  };
}

/** One batch of rollouts per level through `generator` (the model's, or a scripted one in tests); one row per level. */
export async function rolloutLevels(generator: TurnGenerator, tokenizer: Tokenizer, opts: RolloutStatsOptions, log: (line: string) => void = () => {}): Promise<RolloutLevelStats[]> {
  const rows: RolloutLevelStats[] = [];
  for (const { family, level } of opts.levels) {
    const set = taskSet(family, level);
    const config = levelRolloutConfig(set.level, opts.group);
    if (config.maxTotalTokens > generator.maxPositions) throw new Error(`${family}/${level} needs ${config.maxTotalTokens} positions; the model has ${generator.maxPositions}: pick nano-q or tiny-q`);
    const envFamily = set.envFamily as EnvFamily<TaskBase>;
    const t0 = performance.now();
    const trajs = await rolloutBatch({
      family: envFamily, tasks: tasksForStep(envFamily, opts.seed, 0, opts.tasks), tokenizer, generator, config,
      seed: mixSeeds(opts.seed, 0x5201), policyVersion: 0,
    });
    const row = levelStats(`${family}/${level}`, config, trajs, (performance.now() - t0) / 1000);
    log(`${row.taskSet}: ${row.episodes} episodes in ${row.seconds.toFixed(1)} s`);
    rows.push(row);
  }
  return rows;
}

/** Sampled rollouts of the preset's seeded init on `rt` (temperature 1, as GRPO samples), one row per level. */
export async function measureRollouts(rt: GpuRuntime, opts: RolloutStatsOptions, log: (line: string) => void = () => {}): Promise<RolloutLevelStats[]> {
  const cfg = PRESETS[opts.preset];
  const tokenizer = await tokenizerForModel(cfg);
  const w = new GpuWeights(rt, cfg, initialWeights(cfg, opts.seed));
  try {
    return await rolloutLevels(modelTurnGenerator(rt, w, { temperature: 1, topK: 0, topP: 1 }), tokenizer, opts, log);
  } finally {
    w.destroy();
  }
}

const fixed = (x: number, d = 0) => x.toFixed(d);

/** Markdown table, one row per level, with the adapter in every row (figures are per adapter). */
export function formatRolloutTable(rows: readonly RolloutLevelStats[], adapter: string): string {
  const head = '| task set | episodes | max new tokens/turn | turns/episode | policy tokens/episode | total tokens/episode | ends | rollout tokens/s | adapter |';
  const lines = rows.map((r) => {
    const ends = Object.entries(r.ends).sort().map(([k, v]) => `${k} ${v}`).join(', ');
    return `| ${r.taskSet} | ${r.episodes} | ${r.maxNewTokensPerTurn} | ${fixed(r.turnsPerEpisode, 1)} | ${fixed(r.policyTokensPerEpisode)} | ${fixed(r.totalTokensPerEpisode)} | ${ends} | ${fixed(r.tokensPerSecond, 1)} | ${adapter} |`;
  });
  return [head, '|---|---:|---:|---:|---:|---:|---|---:|---|', ...lines].join('\n');
}
