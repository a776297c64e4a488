// Notices that need a decision: resume the last run, a run in another tab (watch or join), a lost
// GPU device. One entry per topic, each with its buttons; dismissed by its own action or by code.
import { h } from './dom';

export interface NoticeAction {
  label: string;
  testid: string;
  run: () => void;
  primary?: boolean;
}

export interface Notices {
  el: HTMLElement;
  show(topic: string, text: string, actions?: NoticeAction[]): void;
  clear(topic: string): void;
  has(topic: string): boolean;
}

export function createNotices(): Notices {
  const el = h('div', { class: 'notices', testid: 'notices', attrs: { role: 'region', 'aria-label': 'Notices', 'aria-live': 'polite' } });
  const entries = new Map<string, HTMLElement>();
  const clear = (topic: string) => {
    entries.get(topic)?.remove();
    entries.delete(topic);
    el.hidden = entries.size === 0;
  };
  el.hidden = true;
  return {
    el,
    show(topic, text, actions = []) {
      clear(topic);
      const buttons = actions.map((a) => h('button', { class: a.primary ? 'primary' : '', text: a.label, testid: a.testid, attrs: { type: 'button' }, on: { click: () => a.run() } }));
      const entry = h('div', { class: 'notice', testid: `notice-${topic}` }, h('p', { text }), h('div', { class: 'buttons' }, ...buttons));
      entries.set(topic, entry);
      el.append(entry);
      el.hidden = false;
    },
    clear,
    has: (topic) => entries.has(topic),
  };
}
