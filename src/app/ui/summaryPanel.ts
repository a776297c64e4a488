// Evaluation and summary: test success (the whole call right) after SFT and
// after GRPO as it comes in, then the run's summary (what was trained, loss, reward, rates, time).
import type { PageRunSummary } from '../../workers/gpu.worker';
import { formatCount } from '../modelSource';
import { h, panel } from './dom';

export interface SummaryPanel {
  el: HTMLElement;
  reset(): void;
  addEval(label: string, success: number, total: number): void;
  setSummary(s: PageRunSummary): void;
}

const pct = (x: number) => `${(100 * x).toFixed(0)} %`;
const secs = (x: number) => `${x.toFixed(0)} s`;

export function createSummaryPanel(): SummaryPanel {
  const evals = h('ul', { class: 'evals', testid: 'evals' });
  const table = h('dl', { class: 'summary', testid: 'summary' });
  const empty = h('p', { class: 'muted', text: 'Test success rates and the run summary appear here.' });
  const el = panel('Evaluation & summary', 'summary-panel', empty, evals, table);
  const row = (k: string, v: string) => [h('dt', { text: k }), h('dd', { text: v })];
  return {
    el,
    reset() {
      evals.replaceChildren();
      table.replaceChildren();
      table.hidden = true;
      empty.hidden = false;
    },
    addEval(label, success, total) {
      empty.hidden = true;
      const bar = h('span', { class: 'eval-bar' }, h('span', { attrs: { style: `width:${total ? (100 * success) / total : 0}%` } }));
      evals.append(h('li', {}, h('span', { class: 'eval-label', text: label }), bar, h('span', { text: `${success}/${total} test tasks solved` })));
    },
    setSummary(s) {
      empty.hidden = true;
      table.hidden = false;
      table.replaceChildren(
        ...row('Model', s.model),
        ...row('Parameters', `${formatCount(s.parameters)} (${s.parameters.toLocaleString('en')})`),
        ...row('SFT loss', Number.isFinite(s.firstLoss) ? `${s.firstLoss.toFixed(4)} → ${s.finalLoss.toFixed(4)}` : 'n/a (no SFT steps)'),
        ...row('Test success', `${s.evals.map((e) => `${pct(e.success / e.total)} ${e.label}`).join(' → ')} (${s.evalTasks} test tasks, the whole call right)`),
        ...row('Final GRPO reward', Number.isFinite(s.finalReward) ? s.finalReward.toFixed(3) : 'n/a (no GRPO steps)'),
        ...row('Kernel self-check failures', String(s.selfCheckFailures)),
        ...row('Time', `${s.seconds.toFixed(1)} s (self-check ${secs(s.stageSeconds.selfCheck)}, SFT ${secs(s.stageSeconds.sft)}, GRPO ${secs(s.stageSeconds.grpo)}, eval ${secs(s.stageSeconds.eval)})`),
      );
    },
  };
}
