// Overall progress of a pipeline run for the page's bar, from its events. Every stage gets a share of
// the bar in proportion to its estimated work (pipelineDraft.stageWork), the kernel self-check
// a fixed 5 %; within SFT and GRPO the bar moves per step, within an evaluation per episode played.
// The bar never moves back. DOM-free.
import { type PipelineConfig, stageRepeats } from '../pipeline/config';
import { stageWork } from './pipelineDraft';
import type { PageRunEvent } from '../workers/runEvents';

export interface RunProgress {
  /** 0 … 1. */
  fraction: number;
  /** What is happening now, one line. */
  label: string;
  /** Stage running (index into config.stages; null before the first). */
  stage: number | null;
  /** When the current phase began (ms): the page shows the time waited for its first step. */
  phaseStart: number;
  /** Episodes played in the running evaluation. */
  evalEpisodes: number;
  done: boolean;
}

const SELF_CHECK_SHARE = 0.05;

/** Where each stage starts and ends on the bar. */
export function stageBands(cfg: PipelineConfig, selfCheck: boolean): [number, number][] {
  const repeats = stageRepeats(cfg);
  const works = cfg.stages.map((s, i) => Math.max(1, stageWork(cfg, s, repeats[i])));
  const total = works.reduce((a, b) => a + b, 0);
  const from = selfCheck ? SELF_CHECK_SHARE : 0;
  let at = from;
  return works.map((w) => {
    const band: [number, number] = [at, at + ((1 - from) * w) / total * 0.98]; // the last 2 %: final samples
    at = band[1];
    return band;
  });
}

export function initialProgress(now = Date.now()): RunProgress {
  return { fraction: 0, label: 'starting…', stage: null, phaseStart: now, evalEpisodes: 0, done: false };
}

const pct = (x: number) => `${(100 * x).toFixed(0)} %`;

export function progressAfter(p: RunProgress, e: PageRunEvent, cfg: PipelineConfig, selfCheck: boolean): RunProgress {
  const bands = stageBands(cfg, selfCheck);
  const at = (fraction: number, label: string, extra: Partial<RunProgress> = {}): RunProgress => ({ ...p, ...extra, label, fraction: Math.max(p.fraction, Math.min(1, fraction)) });
  const of = (i: number) => `stage ${i + 1}/${cfg.stages.length}`;
  switch (e.kind) {
    case 'phase': {
      const band = e.stage !== null ? bands[e.stage] : null;
      const label = e.stage !== null ? `${of(e.stage)} · ${e.detail}` : e.detail;
      const start = e.phase === 'samples' ? 0.98 : band ? band[0] : p.fraction;
      return at(start, label, { stage: e.stage ?? p.stage, phaseStart: e.at, evalEpisodes: e.stage !== p.stage ? 0 : p.evalEpisodes });
    }
    case 'check':
      return at(Math.min(SELF_CHECK_SHARE * 0.95, p.fraction + 0.002), `self-check: ${e.name} ${e.ok ? 'ok' : 'FAILED'}`);
    case 'sft': {
      const [a, b] = bands[e.stage];
      return at(a + (b - a) * (e.step / Math.max(1, e.totalSteps)), `${of(e.stage)} · SFT step ${e.step}/${e.totalSteps} · loss ${e.loss.toFixed(4)}${e.skipped ? ' (skipped: non-finite)' : ''}`, { phaseStart: e.at });
    }
    case 'grpo': {
      const [a, b] = bands[e.stage];
      const m = e.metrics;
      return at(a + (b - a) * (e.step / Math.max(1, e.totalSteps)), `${of(e.stage)} · GRPO step ${e.step}/${e.totalSteps} · success ${pct(m.success_rate ?? 0)} · reward ${(m.reward ?? 0).toFixed(3)}${e.skipped ? ' (update skipped)' : ''}`, { phaseStart: e.at });
    }
    case 'episodes': {
      const evalEps = e.episodes.filter((x) => x.source === 'eval' && x.step === 0);
      if (!evalEps.length || p.stage === null) return p;
      const s = cfg.stages[p.stage];
      if (s?.kind !== 'eval') return p;
      const played = p.evalEpisodes + evalEps.length + (evalEps.length ? e.dropped : 0);
      const total = s.n * (s.seeds?.length ?? 1) * cfg.tasks.length * stageRepeats(cfg)[p.stage];
      const [a, b] = bands[p.stage];
      return at(a + (b - a) * Math.min(1, played / total), `${of(p.stage)} · evaluation "${s.label}": ${Math.min(played, total)}/${total} episodes`, { evalEpisodes: played });
    }
    case 'eval':
      return at(bands[e.stage][1], `${of(e.stage)} · ${e.summary.headline}`);
    case 'done':
      return { ...p, fraction: 1, done: true, label: `done in ${e.result.seconds.toFixed(1)} s` };
    default:
      return p;
  }
}
