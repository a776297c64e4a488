// Page header: the name, what the page does in one line, what this tab's GPU worker got (adapter by
// name, feature level, features, limits; how it was chosen), and the light/dark theme switch.
import type { AdapterReport, WorkerFailure } from '../../workers/gpu.worker';
import { formatBytes } from '../../model/parameters';
import { h } from './dom';

export interface Header {
  el: HTMLElement;
  setAdapter(state: 'pending' | AdapterReport | WorkerFailure, how?: string): void;
  onTheme(cb: (theme: 'light' | 'dark') => void): void;
}

export function createHeader(): Header {
  const adapter = h('div', { class: 'adapter', testid: 'adapter' });
  const theme = h('button', { class: 'small theme', testid: 'theme', attrs: { type: 'button', 'aria-pressed': 'false' } });
  const listeners: ((t: 'light' | 'dark') => void)[] = [];
  const apply = (t: 'light' | 'dark') => {
    document.documentElement.dataset.theme = t;
    theme.textContent = t === 'dark' ? '☀ Light' : '☾ Dark';
    theme.setAttribute('aria-pressed', String(t === 'dark'));
    theme.setAttribute('aria-label', t === 'dark' ? 'Switch to the light theme' : 'Switch to the dark theme');
    for (const l of listeners) l(t);
  };
  const stored = localStorage.getItem('tabforge-theme');
  apply(stored === 'dark' || stored === 'light' ? stored : matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light');
  theme.addEventListener('click', () => {
    const next = document.documentElement.dataset.theme === 'dark' ? 'light' : 'dark';
    localStorage.setItem('tabforge-theme', next);
    apply(next);
  });
  const el = h('header', { class: 'page-header' },
    h('div', { class: 'brand' }, h('h1', { text: 'TabForge' }), h('p', { class: 'tagline', text: 'Train a tool-using agent in this tab: WebGPU, no server.' })),
    h('div', { class: 'header-right' }, adapter, theme));
  const chip = (text: string, cls = '') => h('span', { class: `chip ${cls}`, text });
  return {
    el,
    setAdapter(state, how) {
      adapter.replaceChildren();
      adapter.dataset.state = state === 'pending' ? 'pending' : 'code' in state ? 'failed' : 'ready';
      if (state === 'pending') adapter.append(chip(how ?? 'acquiring a GPU adapter…', 'muted'));
      else if ('code' in state) adapter.append(chip('no GPU', 'bad'), h('span', { class: 'adapter-name', text: state.code }));
      else {
        const features = Object.entries(state.features).filter(([, on]) => on).map(([k]) => k);
        adapter.append(
          chip(state.featureLevel, state.featureLevel === 'core' ? 'good' : 'warn'),
          h('span', { class: 'adapter-name', testid: 'adapter-name', text: state.name }),
          h('span', { class: 'adapter-limits', text: `storage binding ${formatBytes(state.maxStorageBufferBindingSize)} · buffer ${formatBytes(state.maxBufferSize)}${features.length ? ` · ${features.join(', ')}` : ''}` }),
          ...(how ? [h('span', { class: 'adapter-how', testid: 'adapter-how', text: how })] : []),
        );
      }
    },
    onTheme: (cb) => void listeners.push(cb),
  };
}
