// A compact, collapsible log of the run's stages and kernel checks (the details the bar leaves out).
import { h } from './dom';

const MAX_LINES = 2000;

export interface RunLog {
  el: HTMLElement;
  add(line: string, kind?: 'info' | 'ok' | 'bad'): void;
  clear(): void;
  readonly lines: number;
}

export function createRunLog(): RunLog {
  const list = h('ol', { class: 'log-lines', testid: 'run-log' });
  const count = h('span', { class: 'muted', text: '' });
  const el = h('details', { class: 'run-log' }, h('summary', {}, 'Run log ', count), list);
  return {
    el,
    add(line, kind = 'info') {
      list.append(h('li', { class: kind, text: line }));
      while (list.childElementCount > MAX_LINES) list.firstElementChild!.remove();
      count.textContent = `(${list.childElementCount})`;
      list.scrollTop = list.scrollHeight;
    },
    clear() {
      list.replaceChildren();
      count.textContent = '';
    },
    get lines() {
      return list.childElementCount;
    },
  };
}
