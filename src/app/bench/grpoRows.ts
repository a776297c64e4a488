// Pure parts of the GRPO throughput rows (no GPU, no DOM): row names, the fixed workload, and the
// async/sync speed-up rows derived from the measured ones. grpoBench.ts runs them in the page.

/** One measured row: the synchronous loop, or the coordinator with staleness bound k. */
export type GrpoVariant = { mode: 'sync' } | { mode: 'async'; k: number };

export const GRPO_VARIANTS: readonly GrpoVariant[] = [{ mode: 'sync' }, { mode: 'async', k: 1 }, { mode: 'async', k: 2 }];

/** 'grpo throughput sync', 'grpo throughput async k=1', … (the names the issue asks for). */
export function grpoRowName(v: GrpoVariant): string {
  return v.mode === 'sync' ? 'grpo throughput sync' : `grpo throughput async k=${v.k}`;
}

/** The derived row: async k over sync on the same adapter (so `--filter 'grpo throughput'` keeps it). */
export function speedUpRowName(k: number): string {
  return `grpo throughput speed-up async k=${k} / sync`;
}

/** The fixed workload every variant runs (same model, tasks, group size, lengths, steps). */
export interface GrpoWorkload {
  preset: 'nano';
  /** Timed GRPO steps (after the warm-up). */
  steps: number;
  tasksPerStep: number;
  groupSize: number;
  /** Tokens sampled per episode (a fresh model always samples all of them). */
  maxNewTokens: number;
}

/**
 * The workload on an adapter ('swiftshader' | 'llvmpipe' | 'other', as adapterKind names them).
 * Only the number of timed steps depends on the adapter, to keep the three rows near 2 minutes:
 * a step takes ~12 s on SwiftShader (2 steps), ~4 s on llvmpipe (4 steps); quick runs time 1.
 */
export function grpoWorkload(quick: boolean, adapter: string): GrpoWorkload {
  return { preset: 'nano', steps: quick ? 1 : adapter === 'swiftshader' ? 2 : 4, tasksPerStep: 2, groupSize: 4, maxNewTokens: 32 };
}

export function describeWorkload(w: GrpoWorkload): string {
  return `${w.preset}, routing tasks, ${w.tasksPerStep} tasks × G=${w.groupSize}, ${w.maxNewTokens} new tokens/episode, prompt shared per group, ${w.steps} timed steps after warm-up`;
}

/** What a measured row left for the derived rows: its rate, or why it has none. */
export type GrpoOutcome = { tokensPerSecond: number; rolloutSecondsPerStep: number; trainSecondsPerStep: number } | { error: string };

/** async/sync throughput; throws naming the missing side when either row has no value. */
export function speedUp(sync: GrpoOutcome | undefined, async: GrpoOutcome | undefined, k: number): number {
  const missing = (name: string, o: GrpoOutcome | undefined) =>
    o === undefined ? `'${name}' did not run (filter it in too)` : 'error' in o ? `'${name}' failed: ${o.error}` : !(o.tokensPerSecond > 0) ? `'${name}' measured ${o.tokensPerSecond} tokens/s` : null;
  const why = missing(grpoRowName({ mode: 'sync' }), sync) ?? missing(grpoRowName({ mode: 'async', k }), async);
  if (why) throw new Error(`no speed-up: ${why}`);
  return (async as { tokensPerSecond: number }).tokensPerSecond / (sync as { tokensPerSecond: number }).tokensPerSecond;
}

/**
 * The most overlapping rollout and training can give over the synchronous loop, from its own
 * per-step times: (R + T) / max(R, T) — reached only if neither side slows the other down.
 */
export function idealSpeedUp(rolloutSecondsPerStep: number, trainSecondsPerStep: number): number {
  const R = rolloutSecondsPerStep;
  const T = trainSecondsPerStep;
  return Math.max(R, T) > 0 ? (R + T) / Math.max(R, T) : Number.NaN;
}

/** The speed-up row's note: the ratio against the 1.5× target and the ideal overlap bound. */
export function speedUpNote(ratio: number, sync: GrpoOutcome | undefined, target = 1.5): string {
  const met = ratio >= target ? 'meets' : 'below';
  let bound = '';
  if (sync && !('error' in sync)) {
    const ideal = idealSpeedUp(sync.rolloutSecondsPerStep, sync.trainSecondsPerStep);
    bound = `; perfect overlap would give ${ideal.toFixed(2)}× (sync: rollout ${sync.rolloutSecondsPerStep.toFixed(2)} s + train ${sync.trainSecondsPerStep.toFixed(2)} s per step)`;
    // Beating the bound means each side ran faster in its worker than in the sync run: other load on the machine moved between the rows, or the page thread is slower than a worker.
    if (ratio > ideal * 1.02) bound += '; above that bound, so the rows ran under different conditions (machine load, page thread vs worker)';
  }
  return `${ratio.toFixed(2)}× (${met} the ${target}× target)${bound}`;
}
