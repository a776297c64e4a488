// Overall progress of a demo run from its event stream, for the page's progress bar. DOM-free.
// Every stage gets a fixed share of the bar, sized by its measured share of a default run's time on
// llvmpipe (SFT and GRPO steps are the bulk); within SFT and GRPO the bar moves per step, within the
// self-check per kernel checked. The bar never moves back.
import type { DemoEvent } from '../pipeline/demoPipeline';

export interface RunProgress {
  /** 0 … 1. */
  fraction: number;
  /** What is happening now, one line: "SFT step 3/60 · loss 4.1234", "GRPO step 2/40 · success 38 % · reward 0.512". */
  label: string;
  /** Test evaluations finished so far. */
  evalsSeen: number;
  /** Kernel checks seen (self-check stage). */
  checksSeen: number;
  done: boolean;
}

/**
 * Where each stage ends on the bar (the self-check, when run, takes the first 10 %; the rest is
 * shared): eval before SFT (optional) · SFT · eval after SFT · GRPO · eval after GRPO · sample.
 */
function bands(selfCheck: boolean) {
  const check = selfCheck ? 0.1 : 0;
  const at = (x: number) => check + x * (1 - check);
  return { check, before: at(0.03), sft: at(0.5), evalSft: at(0.55), grpo: at(0.93), evalGrpo: at(0.98) };
}

export function initialProgress(): RunProgress {
  return { fraction: 0, label: 'starting…', evalsSeen: 0, checksSeen: 0, done: false };
}

const pct = (x: number) => `${(100 * x).toFixed(0)} %`;

/** The progress after event `e`; `selfCheck` says whether the run includes the kernel self-check. */
export function progressAfter(p: RunProgress, e: DemoEvent, selfCheck: boolean): RunProgress {
  const b = bands(selfCheck);
  const at = (fraction: number, label = p.label): RunProgress => ({ ...p, label, fraction: Math.max(p.fraction, fraction) });
  switch (e.kind) {
    case 'stage': {
      const label = `${e.stage}${e.detail ? `: ${e.detail}` : ''}`;
      if (e.stage === 'self-check') return at(0, label);
      if (e.stage === 'sft') return at(b.before, label);
      if (e.stage === 'grpo') return at(b.evalSft, label);
      if (e.stage === 'eval') return at(e.eval === 'after GRPO' ? b.grpo : e.eval === 'after SFT' ? b.sft : b.check, label);
      if (e.stage === 'sample') return at(b.evalGrpo, label);
      return at(b.check, label);
    }
    case 'check': {
      const checksSeen = p.checksSeen + 1;
      // The number of checks is not announced: approach the band's end without reaching it.
      return { ...at(b.check * (checksSeen / (checksSeen + 4)), `self-check: ${checksSeen} kernel checks`), checksSeen };
    }
    case 'sft': {
      const { step, loss } = e.metrics;
      const f = b.before + (b.sft - b.before) * Math.min(1, step / Math.max(1, e.totalSteps));
      return at(f, `SFT step ${step}/${e.totalSteps} · loss ${loss.toFixed(4)}${e.metrics.skipped ? ' (skipped: non-finite)' : ''}`);
    }
    case 'grpo': {
      const g = e.progress;
      const f = b.evalSft + (b.grpo - b.evalSft) * Math.min(1, g.step / Math.max(1, g.totalSteps));
      return at(f, `GRPO step ${g.step}/${g.totalSteps} · success ${pct(g.successRate)} · reward ${g.reward.toFixed(3)}${g.skipped ? ' (update skipped)' : ''}`);
    }
    case 'eval': {
      const end = e.label === 'after GRPO' ? b.evalGrpo : e.label === 'after SFT' ? b.evalSft : b.before;
      return { ...at(end, `${e.label}: ${e.success}/${e.total} test tasks solved`), evalsSeen: p.evalsSeen + 1 };
    }
    case 'sample':
      return at(b.evalGrpo);
    case 'done':
      return { ...p, fraction: 1, done: true, label: `done in ${e.summary.seconds.toFixed(1)} s` };
  }
}
