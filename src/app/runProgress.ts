// Overall progress of a demo run from its event stream, for the page's progress bar. DOM-free.
// The stages get fixed shares of the bar (SFT steps are the bulk of the time); within SFT the bar
// moves per optimizer step, within the self-check per kernel checked.
import type { DemoEvent } from '../train/demoPipeline';

export interface RunProgress {
  /** 0 … 1. */
  fraction: number;
  /** What is happening now, one line: "SFT step 3/60 · loss 4.1234". */
  label: string;
  /** Held-out evaluations seen so far (the first is before SFT, the second after). */
  evalsSeen: number;
  /** Kernel checks seen (self-check stage). */
  checksSeen: number;
  done: boolean;
}

/** Share of the bar where each stage ends, with and without the kernel self-check. */
function bands(selfCheck: boolean) {
  const check = selfCheck ? 0.1 : 0;
  const rest = 1 - check;
  return { check, evalBefore: check + 0.1 * rest, sft: check + 0.85 * rest, evalAfter: check + 0.98 * rest };
}

export function initialProgress(): RunProgress {
  return { fraction: 0, label: 'starting…', evalsSeen: 0, checksSeen: 0, done: false };
}

/** The progress after event `e`; `selfCheck` says whether the run includes the kernel self-check. */
export function progressAfter(p: RunProgress, e: DemoEvent, selfCheck: boolean): RunProgress {
  const b = bands(selfCheck);
  switch (e.kind) {
    case 'stage': {
      const label = `${e.stage}${e.detail ? `: ${e.detail}` : ''}`;
      if (e.stage === 'self-check') return { ...p, label, fraction: 0 };
      if (e.stage === 'eval') return { ...p, label, fraction: p.evalsSeen === 0 ? b.check : b.sft };
      if (e.stage === 'sft') return { ...p, label, fraction: b.evalBefore };
      return { ...p, label, fraction: Math.max(p.fraction, b.check) };
    }
    case 'check': {
      const checksSeen = p.checksSeen + 1;
      // The number of checks is not announced: approach the band's end without reaching it.
      const fraction = b.check * (checksSeen / (checksSeen + 4));
      return { ...p, checksSeen, fraction, label: `self-check: ${checksSeen} kernel checks` };
    }
    case 'sft': {
      const { step, loss } = e.metrics;
      const fraction = b.evalBefore + (b.sft - b.evalBefore) * Math.min(1, step / e.totalSteps);
      return { ...p, fraction, label: `SFT step ${step}/${e.totalSteps} · loss ${loss.toFixed(4)}${e.metrics.skipped ? ' (skipped: non-finite)' : ''}` };
    }
    case 'eval': {
      const evalsSeen = p.evalsSeen + 1;
      return { ...p, evalsSeen, fraction: evalsSeen === 1 ? b.evalBefore : b.evalAfter, label: `${e.label}: ${e.success}/${e.total} held-out tool calls exact` };
    }
    case 'sample':
      return { ...p, fraction: Math.max(p.fraction, b.evalAfter) };
    case 'done':
      return { ...p, fraction: 1, done: true, label: `done in ${e.summary.seconds.toFixed(1)} s` };
  }
}
