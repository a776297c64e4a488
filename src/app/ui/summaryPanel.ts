// Evaluation and summary: held-out tool-call accuracy before/after SFT as it comes in, then the
// run's summary (what was trained, losses, time).
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

export function createSummaryPanel(): SummaryPanel {
  const evals = h('ul', { class: 'evals', testid: 'evals' });
  const table = h('dl', { class: 'summary', testid: 'summary' });
  const empty = h('p', { class: 'muted', text: 'Held-out tool-call accuracy and the run summary appear here.' });
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
      evals.append(h('li', {}, h('span', { class: 'eval-label', text: label }), bar, h('span', { text: `${success}/${total} exact tool calls` })));
    },
    setSummary(s) {
      empty.hidden = true;
      table.hidden = false;
      table.replaceChildren(
        ...row('Model', s.model),
        ...row('Parameters', `${formatCount(s.parameters)} (${s.parameters.toLocaleString('en')})`),
        ...row('Loss', `${s.firstLoss.toFixed(4)} → ${s.finalLoss.toFixed(4)}`),
        ...row('Held-out exact calls', `${pct(s.heldoutSuccessBefore)} → ${pct(s.heldoutSuccessAfter)}`),
        ...row('Kernel self-check failures', String(s.selfCheckFailures)),
        ...row('Time', `${s.seconds.toFixed(1)} s`),
      );
    },
  };
}
