// Start / Stop and the run's progress bar with a one-line status.
import type { TrainCheck } from '../modelSource';
import type { RunProgress } from '../runProgress';
import { h } from './dom';

export type RunState = 'no-gpu' | 'idle' | 'running' | 'stopping';

export interface RunControls {
  el: HTMLElement;
  onStart(cb: () => void): void;
  onStop(cb: () => void): void;
  setState(state: RunState, canStart?: boolean): void;
  setProgress(p: RunProgress): void;
  /** A status line without progress (e.g. "stopped"). */
  setStatus(text: string): void;
  /** What the next run needs and whether it fits (null: unknown yet). */
  setEstimate(what: string, check: TrainCheck | null): void;
}

export function createRunControls(): RunControls {
  const start = h('button', { class: 'primary', text: 'Start', testid: 'start', attrs: { type: 'button' } });
  const stop = h('button', { text: 'Stop', testid: 'stop', attrs: { type: 'button' } });
  const bar = h('progress', { testid: 'progress', attrs: { max: '1', value: '0', 'aria-label': 'Run progress' } });
  const percent = h('span', { class: 'percent', testid: 'progress-percent', text: '0 %' });
  const status = h('div', { class: 'status', testid: 'run-status', text: 'Waiting for the GPU…', attrs: { 'aria-live': 'polite' } });
  const estimate = h('ul', { class: 'fit estimate', testid: 'run-estimate' });
  const el = h('div', { class: 'run-controls', testid: 'run-controls' },
    estimate,
    h('div', { class: 'buttons' }, start, stop),
    h('div', { class: 'progress-row' }, bar, percent),
    status);
  return {
    el,
    onStart: (cb) => start.addEventListener('click', cb),
    onStop: (cb) => stop.addEventListener('click', cb),
    setState(state, canStart = true) {
      el.dataset.state = state;
      start.disabled = state !== 'idle' || !canStart;
      stop.disabled = state !== 'running';
      stop.textContent = state === 'stopping' ? 'Stopping…' : 'Stop';
    },
    setProgress(p) {
      bar.value = p.fraction;
      percent.textContent = `${Math.round(p.fraction * 100)} %`;
      status.textContent = p.label;
    },
    setStatus(text) {
      status.textContent = text;
    },
    setEstimate(what, check) {
      estimate.replaceChildren();
      if (!check) return;
      estimate.dataset.ok = String(check.ok);
      check.lines.forEach((line, i) => estimate.append(h('li', {
        class: i === 0 ? '' : line.startsWith('fits') ? 'good' : line.startsWith('fit unknown') ? 'muted' : 'bad',
        text: i === 0 && what ? `${what}: ${line}` : line,
      })));
    },
  };
}
