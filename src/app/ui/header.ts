// Page header: the name and what this tab's GPU worker got (adapter, feature level, features, limits).
import type { AdapterReport, WorkerFailure } from '../../workers/gpu.worker';
import { formatBytes } from '../../model/parameters';
import { h } from './dom';

export interface Header {
  el: HTMLElement;
  setAdapter(state: 'pending' | AdapterReport | WorkerFailure): void;
}

export function createHeader(): Header {
  const adapter = h('div', { class: 'adapter', testid: 'adapter' });
  const el = h('header', { class: 'page-header' },
    h('div', { class: 'brand' }, h('h1', { text: 'TabForge' }), h('p', { class: 'tagline', text: 'Train a tool-using agent in this tab: WebGPU, no server.' })),
    adapter);
  const chip = (text: string, cls = '') => h('span', { class: `chip ${cls}`, text });
  return {
    el,
    setAdapter(state) {
      adapter.replaceChildren();
      adapter.dataset.state = state === 'pending' ? 'pending' : 'code' in state ? 'failed' : 'ready';
      if (state === 'pending') {
        adapter.append(chip('acquiring a GPU adapter…', 'muted'));
      } else if ('code' in state) {
        adapter.append(chip('no GPU', 'bad'), h('span', { class: 'adapter-name', text: state.code }));
      } else {
        const features = Object.entries(state.features).filter(([, on]) => on).map(([k]) => k);
        adapter.append(
          chip(state.featureLevel, state.featureLevel === 'core' ? 'good' : 'warn'),
          // describeContext ends with the level and features, which the chips show already.
          h('span', { class: 'adapter-name', text: state.description.replace(/ (core|compatibility)( \[[^\]]*\])?$/, '').replace(' (?/?)', ''), attrs: { title: `${state.vendor} / ${state.architecture}` } }),
          h('span', { class: 'adapter-limits', text: `storage binding ${formatBytes(state.maxStorageBufferBindingSize)} · buffer ${formatBytes(state.maxBufferSize)}${features.length ? ` · ${features.join(', ')}` : ''}` }),
        );
      }
    },
  };
}
