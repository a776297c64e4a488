// Synthetic page-run events for the page's unit tests (no GPU): SFT and GRPO steps, evaluations.
import type { EvalSummary } from '../pipeline/evalSummary';
import type { EpisodeView, PageRunEvent } from '../workers/runEvents';

export const sftEvent = (stage: number, step: number, totalSteps: number, at: number, loss = 5 - step / 10): PageRunEvent =>
  ({ kind: 'sft', stage, step, totalSteps, loss, lr: 1e-3, gradNorm: 1, tokensPerSec: 1000 + step, skipped: false, at });

export const grpoEvent = (stage: number, step: number, totalSteps: number, at: number, metrics: Record<string, number> = {}): PageRunEvent =>
  ({ kind: 'grpo', stage, step, totalSteps, skipped: false, metrics: { success_rate: step / totalSteps, reward: 0.1 * step, 'reward/format': 1, 'reward/exact_match': 0.5, approx_kl: 0.01, entropy: 1.2, clip_ratio: 0.02, groups_dropped: 1, 'sampling/groups_drawn': 8, 'rollout/tokens_per_s': 50, 'train/tokens_per_s': 300, ...metrics }, at });

const rate = (successes: number, n: number) => ({ successes, n, rate: n ? successes / n : 0, lo: 0, hi: 1 });

export function evalSummary(label: string, split: 'validation' | 'test', successes: number, n: number, baselines: { label: string; successes: number }[] = []): EvalSummary {
  const policy = (l: string, kind: 'model' | 'baseline', k: number) => ({ label: l, kind, note: '', n, success: rate(k, n), meanReward: k / n, components: {}, by: {} });
  return {
    label, split, seeds: [1], headline: `function-calling/route4 ${split}: ${successes}/${n}`,
    taskSets: [{ taskSet: 'function-calling/route4', model: policy(label, 'model', successes), baselines: baselines.map((b) => policy(b.label, 'baseline', b.successes)), truncatedFraction: 0, meanTurns: 1, meanTokens: 100, endsAndFaults: {}, successByTask: {}, table: '' }],
  };
}

export function episode(over: Partial<EpisodeView> = {}): EpisodeView {
  return {
    source: 'rollout', stage: 2, step: 1, label: 'GRPO step 1', taskSet: 'function-calling/route4', taskId: 'route4-train-1-0', category: 'weather', group: 0, sample: 0,
    messages: [{ role: 'system', content: 'tools' }, { role: 'user', content: 'weather in Quito?' }, { role: 'assistant', content: '<tool_call>{"name":"weather","arguments":{"city":"Quito"}}</tool_call>' }],
    turns: [{ tokens: 30, hitTokenLimit: false, totalAfter: 1 }], reward: { total: 1, components: { exact_match: 1 } }, success: true, truncated: false, end: 'done', tokens: 120, ...over,
  };
}
