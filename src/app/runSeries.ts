// A run's numbers as the charts need them, built from the worker's events (or restored from a
// checkpoint / the run history): SFT steps, GRPO steps with every named metric, evaluations with
// their intervals, validation points, GPU memory. Step axes count across stages: SFT steps, GRPO
// steps, and all training steps in run order. Exports: CSV per chart, JSONL of every step. DOM-free.
import type { EvalSummary } from '../pipeline/evalSummary';
import type { PageRunEvent, RestoredProgress } from '../workers/runEvents';

export interface SftPoint { stage: number; step: number; sftIndex: number; overall: number; loss: number; lr: number; gradNorm: number; tokensPerSec: number; at: number }
export interface GrpoPoint { stage: number; step: number; grpoIndex: number; overall: number; metrics: Record<string, number>; skipped: boolean; at: number }
/** An evaluation (eval stage or validation point), placed after the GRPO steps done before it. */
export interface EvalPoint { stage: number; label: string; split: string; grpoIndex: number; overall: number; success: number; lo: number; hi: number; n: number; reward: number; headline: string }
export interface MemoryPoint { overall: number; bytes: number; at: number }

/** The model's success of an eval summary, pooled over its task sets (successes ÷ n). */
export function pooledSuccess(s: EvalSummary): { rate: number; lo: number; hi: number; n: number; reward: number } {
  const sets = s.taskSets.map((t) => t.model);
  const n = sets.reduce((a, m) => a + m.n, 0);
  const k = sets.reduce((a, m) => a + m.success.successes, 0);
  if (sets.length === 1) return { rate: sets[0].success.rate, lo: sets[0].success.lo, hi: sets[0].success.hi, n, reward: sets[0].meanReward };
  // several task sets: the pooled rate with a Wilson interval
  const p = n ? k / n : 0;
  const z = 1.96;
  const d = 1 + (z * z) / n;
  const c = (p + (z * z) / (2 * n)) / d;
  const h = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / d;
  return { rate: p, lo: n ? Math.max(0, c - h) : 0, hi: n ? Math.min(1, c + h) : 0, n, reward: n ? sets.reduce((a, m) => a + m.meanReward * m.n, 0) / n : 0 };
}

export class RunSeries {
  sft: SftPoint[] = [];
  grpo: GrpoPoint[] = [];
  evals: EvalPoint[] = [];
  memory: MemoryPoint[] = [];
  /** Bumped on every change (charts redraw when it moved). */
  version = 0;

  private get overall(): number {
    return this.sft.length + this.grpo.length;
  }

  /** Takes one event; true when the charts changed. */
  add(e: PageRunEvent): boolean {
    switch (e.kind) {
      case 'sft':
        this.sft.push({ stage: e.stage, step: e.step, sftIndex: this.sft.length + 1, overall: this.overall + 1, loss: e.loss, lr: e.lr, gradNorm: e.gradNorm, tokensPerSec: e.tokensPerSec, at: e.at });
        break;
      case 'grpo':
        this.grpo.push({ stage: e.stage, step: e.step, grpoIndex: this.grpo.length + 1, overall: this.overall + 1, metrics: e.metrics, skipped: e.skipped, at: e.at });
        break;
      case 'eval':
      case 'curve':
        this.addEval(e.stage, e.summary);
        break;
      case 'memory':
        this.memory.push({ overall: this.overall, bytes: e.bytes, at: e.at });
        break;
      case 'resumed':
        this.restore(e.restored);
        break;
      default:
        return false;
    }
    this.version++;
    return true;
  }

  private addEval(stage: number, summary: EvalSummary): void {
    const p = pooledSuccess(summary);
    this.evals.push({ stage, label: summary.label, split: summary.split, grpoIndex: this.grpo.length, overall: this.overall, success: p.rate, lo: p.lo, hi: p.hi, n: p.n, reward: p.reward, headline: summary.headline });
  }

  /** Replaces everything with what a checkpoint restored (a resumed run's history up to its checkpoint). */
  restore(r: RestoredProgress): void {
    this.sft = [];
    this.grpo = [];
    this.evals = [];
    this.memory = [];
    // run order: stages ascending; evaluations after the stages before them
    const steps = [
      ...r.sft.flatMap((s) => s.steps.map((m) => ({ stage: s.stage, kind: 'sft' as const, m }))),
      ...r.grpo.map((g) => ({ stage: g.stage, kind: 'grpo' as const, g })),
      ...r.evals.map((e) => ({ stage: e.stage, kind: 'eval' as const, e })),
    ].sort((a, b) => a.stage - b.stage);
    for (const s of steps) {
      if (s.kind === 'sft') this.sft.push({ stage: s.stage, ...s.m, sftIndex: this.sft.length + 1, overall: this.overall + 1, at: 0 });
      else if (s.kind === 'grpo') this.grpo.push({ stage: s.stage, step: s.g.step, grpoIndex: this.grpo.length + 1, overall: this.overall + 1, metrics: s.g.metrics, skipped: s.g.skipped, at: 0 });
      else this.addEval(s.stage, s.e.summary);
    }
    this.version++;
  }

  /** Names of the reward components seen in GRPO steps ("format", "function_choice", …). */
  componentNames(): string[] {
    const names = new Set<string>();
    for (const p of this.grpo) for (const k of Object.keys(p.metrics)) if (/^reward\/[^/]+$/.test(k)) names.add(k.slice('reward/'.length));
    return [...names].sort();
  }

  /** Every step as one JSON line: {"kind":"sft"|"grpo", stage, step, …metrics}; evaluations too. */
  toJsonl(): string {
    const lines = [
      ...this.sft.map((p) => ({ kind: 'sft', stage: p.stage, step: p.step, loss: p.loss, lr: p.lr, grad_norm: p.gradNorm, tokens_per_s: p.tokensPerSec })),
      ...this.grpo.map((p) => ({ kind: 'grpo', stage: p.stage, step: p.step, skipped: p.skipped, ...p.metrics })),
      ...this.evals.map((e) => ({ kind: 'eval', stage: e.stage, label: e.label, split: e.split, success: e.success, ci_lo: e.lo, ci_hi: e.hi, n: e.n, reward: e.reward })),
    ];
    return lines.map((l) => JSON.stringify(l, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v))).join('\n') + (lines.length ? '\n' : '');
  }
}

/** Exponential moving average (TensorBoard's smoothing): weight in [0, 1), nulls pass through. */
export function smooth(ys: readonly (number | null)[], weight: number): (number | null)[] {
  if (weight <= 0) return [...ys];
  let acc = 0;
  let n = 0;
  return ys.map((y) => {
    if (y === null || !Number.isFinite(y)) return y;
    n++;
    acc = acc * weight + (1 - weight) * y;
    return acc / (1 - weight ** n); // debiased: the first value is itself
  });
}

const csvCell = (v: number | string | null) => (v === null ? '' : typeof v === 'number' ? (Number.isFinite(v) ? String(v) : '') : /[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

/** A table as CSV: a header line and one line per row. */
export function toCsv(header: readonly string[], rows: readonly (readonly (number | string | null)[])[]): string {
  return [header, ...rows].map((r) => r.map(csvCell).join(',')).join('\n') + '\n';
}
