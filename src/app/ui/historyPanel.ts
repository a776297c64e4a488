// Run history: every run of this browser (newest first) with its status and headline, to view again,
// resume (an interrupted or stopped run with a checkpoint), delete, or compare two side by side.
import { compareRuns, type CompareRow } from '../runCompare';
import type { RunRecord } from '../runStore';
import type { RunSeries } from '../runSeries';
import { h, panel } from './dom';

export interface HistoryActions {
  view(id: string): void;
  resume(id: string): void;
  remove(id: string): Promise<void>;
  /** A run's record and its series (rebuilt from its stored events). */
  load(id: string): Promise<{ record: RunRecord; series: RunSeries } | null>;
}

export interface HistoryPanel {
  el: HTMLElement;
  show(runs: RunRecord[], current: string | null, busy: boolean): void;
}

const when = (t: number) => new Date(t).toLocaleString('en-GB', { dateStyle: 'short', timeStyle: 'short' });

function headline(r: RunRecord): string {
  const last = r.result?.evals.at(-1);
  if (last) return last.headline;
  if (r.lastSaved) return `checkpoint at stage ${r.lastSaved.stage + 1}, step ${r.lastSaved.step}`;
  return r.error ?? '';
}

function rowsTable(caption: string, rows: CompareRow[], a: string, b: string): HTMLElement {
  return h('table', { class: 'compare' },
    h('caption', { text: caption }),
    h('thead', {}, h('tr', {}, h('th', { text: '', attrs: { scope: 'col' } }), h('th', { text: a, attrs: { scope: 'col' } }), h('th', { text: b, attrs: { scope: 'col' } }))),
    h('tbody', {}, ...(rows.length ? rows : [{ label: '(none)', a: '', b: '', differs: false }]).map((r) => h('tr', { class: r.differs ? 'differs' : '' },
      h('th', { text: r.label, attrs: { scope: 'row' } }), h('td', { text: r.a }), h('td', { text: r.b })))));
}

export function createHistoryPanel(actions: HistoryActions): HistoryPanel {
  const list = h('ul', { class: 'history', testid: 'history' });
  const compareButton = h('button', { text: 'Compare the two ticked runs', testid: 'compare', attrs: { type: 'button' } });
  const compareOut = h('div', { class: 'compare-out', testid: 'compare-out', attrs: { 'aria-live': 'polite' } });
  const el = panel('Run history', 'history-panel',
    h('p', { class: 'hint', text: 'Runs of this browser, kept in its storage with their charts, log and episodes. Tick two to compare them.' }),
    list, compareButton, compareOut);
  const ticked = new Set<string>();
  const syncCompare = () => (compareButton.disabled = ticked.size !== 2);
  compareButton.addEventListener('click', async () => {
    const [x, y] = await Promise.all([...ticked].map((id) => actions.load(id)));
    if (!x || !y) return;
    const c = compareRuns(x, y);
    const name = (r: RunRecord) => `${r.title} (${when(r.createdAt)})`;
    compareOut.replaceChildren(rowsTable('Settings that differ', c.settings, name(x.record), name(y.record)), rowsTable('Results', c.results, name(x.record), name(y.record)));
  });
  syncCompare();
  return {
    el,
    show(runs, current, busy) {
      for (const id of [...ticked]) if (!runs.some((r) => r.id === id)) ticked.delete(id);
      list.replaceChildren(...(runs.length ? runs.map((r) => {
        const tick = h('input', { attrs: { type: 'checkbox', 'aria-label': `Compare ${r.title} of ${when(r.createdAt)}` } });
        tick.checked = ticked.has(r.id);
        tick.addEventListener('change', () => {
          if (tick.checked) ticked.add(r.id);
          else ticked.delete(r.id);
          syncCompare();
        });
        const canResume = !busy && r.checkpointDb !== null && r.lastSaved !== null && (r.status === 'interrupted' || r.status === 'stopped' || r.status === 'failed');
        const view = h('button', { class: 'small', text: r.id === current ? 'Shown' : 'View', attrs: { type: 'button' }, on: { click: () => actions.view(r.id) } });
        view.disabled = busy || r.id === current;
        const resume = h('button', { class: 'small', text: 'Resume', attrs: { type: 'button' }, on: { click: () => actions.resume(r.id) } });
        resume.hidden = !canResume;
        const del = h('button', { class: 'small', text: 'Delete', attrs: { type: 'button', 'aria-label': `Delete run ${r.title} of ${when(r.createdAt)}` } });
        del.disabled = busy && r.id === current;
        del.addEventListener('click', () => void actions.remove(r.id));
        return h('li', { testid: 'history-run', attrs: { 'data-status': r.status, 'data-run': r.id } },
          tick,
          h('div', { class: 'history-main' },
            h('strong', { text: r.title }), h('span', { class: `chip status-${r.status}`, text: r.status }),
            h('span', { class: 'muted', text: ` ${when(r.createdAt)} · ${r.config.preset} · ${r.config.tasks.map((t) => t.level ?? t.family).join(' + ')}` }),
            h('div', { class: 'muted small-text', text: headline(r) })),
          h('div', { class: 'history-buttons' }, view, resume, del));
      }) : [h('li', { class: 'muted', text: 'No runs yet.' })]));
      syncCompare();
    },
  };
}
