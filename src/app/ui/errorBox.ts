// The visible error box: every error a run, the GPU worker, a share link or a model load reports
// is listed here with where it came from, until dismissed or superseded.
import { h } from './dom';

export interface ErrorBox {
  el: HTMLElement;
  /** Shows `message` under `source` (one entry per source: a newer one replaces the older). */
  show(source: string, message: string): void;
  /** Removes the entry of `source` (e.g. the model panel after a successful load). */
  clear(source: string): void;
}

export function createErrorBox(): ErrorBox {
  const list = h('ul');
  const el = h('div', { class: 'error-box', testid: 'error-box', attrs: { role: 'alert', 'aria-live': 'assertive' } }, list);
  el.hidden = true;
  const entries = new Map<string, HTMLElement>();
  const refresh = () => {
    el.hidden = entries.size === 0;
  };
  const clear = (source: string) => {
    entries.get(source)?.remove();
    entries.delete(source);
    refresh();
  };
  return {
    el,
    show(source, message) {
      clear(source);
      const close = h('button', { class: 'dismiss', text: '×', attrs: { title: 'Dismiss', 'aria-label': `Dismiss ${source} error` }, on: { click: () => clear(source) } });
      const li = h('li', { attrs: { 'data-source': source } }, h('strong', { text: `${source}: ` }), h('span', { class: 'message', text: message }), close);
      entries.set(source, li);
      list.append(li);
      refresh();
    },
    clear,
  };
}
