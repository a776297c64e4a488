// A live time estimate for the rest of a run: each remaining stage at the speed measured so far
// (SFT and GRPO steps from their recent step times, the first step of a stage left out — it
// compiles the kernels; evaluation episodes from the evaluations already done, else from the GRPO
// rollouts). Stages whose speed is not measured yet make the estimate a lower bound. DOM-free.
import { type PipelineConfig, stageRepeats } from '../pipeline/config';
import type { RunSeries } from './runSeries';

/** When each stage started and ended (ms since the epoch), from the run's phase events. */
export interface StageTimes {
  start: Map<number, number>;
  end: Map<number, number>;
}

export interface Eta {
  /** Seconds left (null: nothing measured yet). */
  seconds: number | null;
  /** Some remaining stage has no measured speed: the run takes at least `seconds`. */
  lowerBound: boolean;
  /** The current speed, e.g. "1.9 SFT steps/s" or "14 s per GRPO step" (empty before the second step). */
  rate: string;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : NaN;
};

/** Seconds per step of the last `window` steps of the same stage (the stage's first step excluded). */
function secondsPerStep(points: readonly { stage: number; step: number; at: number }[], window = 8): number | null {
  const gaps: number[] = [];
  for (let i = points.length - 1; i > 0 && gaps.length < window; i--) {
    const a = points[i - 1];
    const b = points[i];
    if (a.stage === b.stage && b.at > 0 && a.at > 0) gaps.push((b.at - a.at) / 1000);
  }
  return gaps.length ? median(gaps) : null;
}

export function estimateRemaining(cfg: PipelineConfig, series: RunSeries, times: StageTimes, running: { stage: number } | null, now: number): Eta {
  const sftRate = secondsPerStep(series.sft);
  const grpoRate = secondsPerStep(series.grpo);
  const repeats = stageRepeats(cfg); // specialists: their stage trains (or evaluates) one model per task set
  // seconds per evaluation episode: from finished eval stages, else a GRPO step's time per episode
  let evalRate: number | null = null;
  let evalEpisodes = 0;
  let evalSeconds = 0;
  cfg.stages.forEach((s, i) => {
    const [a, b] = [times.start.get(i), times.end.get(i)];
    if (s.kind === 'eval' && a !== undefined && b !== undefined) {
      evalEpisodes += s.n * (s.seeds?.length ?? 1) * cfg.tasks.length * repeats[i];
      evalSeconds += (b - a) / 1000;
    }
  });
  if (evalEpisodes > 0) evalRate = evalSeconds / evalEpisodes;
  else if (grpoRate !== null) {
    const g = cfg.stages.find((s) => s.kind === 'grpo');
    if (g && g.kind === 'grpo') evalRate = grpoRate / (g.tasksPerStep * g.groupSize) / 2; // greedy, no training
  }

  let seconds = 0;
  let lowerBound = false;
  let measuredAny = false;
  const add = (x: number | null) => {
    if (x === null) lowerBound = true;
    else {
      seconds += x;
      measuredAny = true;
    }
  };
  const from = running ? running.stage : cfg.stages.findIndex((_, i) => !times.end.has(i));
  cfg.stages.forEach((s, i) => {
    if (from < 0 || i < from || times.end.has(i)) return;
    if (s.kind === 'sft') {
      const done = i === from ? (series.sft.filter((p) => p.stage === i).at(-1)?.step ?? 0) : 0;
      add(sftRate === null ? null : (s.steps * repeats[i] - done) * sftRate);
    } else if (s.kind === 'grpo') {
      const done = i === from ? (series.grpo.filter((p) => p.stage === i).at(-1)?.step ?? 0) : 0;
      add(grpoRate === null ? null : (s.steps * repeats[i] - done) * grpoRate);
    } else if (s.kind === 'eval') {
      const total = evalRate === null ? null : s.n * (s.seeds?.length ?? 1) * cfg.tasks.length * repeats[i] * evalRate;
      const spent = i === from && times.start.has(i) ? (now - times.start.get(i)!) / 1000 : 0;
      add(total === null ? null : Math.max(0, total - spent));
    }
  });
  const current = running ? cfg.stages[running.stage] : undefined;
  const rate = current?.kind === 'sft' && sftRate ? (sftRate < 1 ? `${(1 / sftRate).toFixed(1)} SFT steps/s` : `${sftRate.toFixed(1)} s per SFT step`)
    : current?.kind === 'grpo' && grpoRate ? (grpoRate < 1 ? `${(1 / grpoRate).toFixed(1)} GRPO steps/s` : `${grpoRate.toFixed(1)} s per GRPO step`) : '';
  return { seconds: measuredAny ? seconds : null, lowerBound, rate };
}

/** "3 min 20 s", "45 s", "2 h 05 min". */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}

/** One line for the run panel: "about 3 min 20 s left · 1.9 SFT steps/s". */
export function describeEta(e: Eta): string {
  const left = e.seconds === null ? 'time left: measured after the first steps' : `${e.lowerBound ? 'at least ' : 'about '}${formatDuration(e.seconds)} left`;
  return e.rate ? `${left} · ${e.rate}` : left;
}
