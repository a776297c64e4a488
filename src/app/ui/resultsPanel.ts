// Evaluations and the run's summary: each evaluation as a table per task set — the model's success
// with its 95 % interval and n, its mean reward, and the cheap baselines on the same tasks — then
// what was trained and how long each stage took.
import type { EvalSummary } from '../../pipeline/evalSummary';
import type { PageRunResult } from '../../workers/runEvents';
import { formatCount } from '../modelSource';
import { h, panel } from './dom';

export interface ResultsPanel {
  el: HTMLElement;
  reset(): void;
  addEval(summary: EvalSummary): void;
  setResult(r: PageRunResult, stageNames: string[]): void;
}

const pct = (x: number) => `${(100 * x).toFixed(1)} %`;

export function createResultsPanel(): ResultsPanel {
  const evals = h('div', { class: 'evals', testid: 'evals' });
  const summary = h('dl', { class: 'summary', testid: 'summary' });
  const empty = h('p', { class: 'muted', text: 'Each evaluation (success with its 95 % interval, beside cheap baselines on the same tasks) and the run summary appear here.' });
  const el = panel('Evaluations & summary', 'summary-panel', empty, evals, summary);
  const row = (k: string, v: string) => [h('dt', { text: k }), h('dd', { text: v })];
  return {
    el,
    reset() {
      evals.replaceChildren();
      summary.replaceChildren();
      summary.hidden = true;
      empty.hidden = false;
    },
    addEval(s) {
      empty.hidden = true;
      const tables = s.taskSets.map((t) => h('table', { class: 'eval-table' },
        h('caption', { text: `${t.taskSet}, ${s.split} split${s.seeds.length > 1 ? `, seeds ${s.seeds.join(', ')}` : `, seed ${s.seeds[0]}`}` }),
        h('thead', {}, h('tr', {}, ...['', 'success', '95 % interval', 'n', 'mean reward'].map((c) => h('th', { text: c, attrs: { scope: 'col' } })))),
        h('tbody', {}, ...[t.model, ...t.baselines].map((p) => h('tr', { class: p.kind },
          h('th', { text: p.kind === 'model' ? 'model' : p.label, attrs: { scope: 'row', title: p.note } }),
          h('td', { text: pct(p.success.rate) }), h('td', { text: `${pct(p.success.lo)} – ${pct(p.success.hi)}` }),
          h('td', { text: String(p.n) }), h('td', { text: p.meanReward.toFixed(3) }))))));
      evals.append(h('section', { class: 'eval', testid: 'eval', attrs: { 'data-label': s.label } }, h('h3', { text: s.label }), h('p', { class: 'muted', text: s.headline }), ...tables));
    },
    setResult(r, stageNames) {
      empty.hidden = true;
      summary.hidden = false;
      summary.replaceChildren(
        ...row('Model', r.model),
        ...row('Parameters', `${formatCount(r.parameters)} (${r.parameters.toLocaleString('en')})`),
        ...row('Test success', r.evals.filter((e) => e.split === 'test').map((e) => `${e.label}: ${e.headline}`).join(' → ') || 'no test evaluation in this pipeline'),
        ...row('Time', `${r.seconds.toFixed(1)} s (${r.stageSeconds.map((s, i) => `${stageNames[i] ?? `stage ${i + 1}`} ${s.toFixed(0)} s`).join(', ')})`),
      );
    },
  };
}
