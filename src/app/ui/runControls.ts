// The Run panel: Start / Stop, the progress bar with what is happening and the time left, the
// fit estimate, run settings (GPU adapter, kernel self-check, autosave period), and the share link
// (copied, never written into the address bar; off while a run is in progress).
import type { TrainCheck } from '../modelSource';
import { h } from './dom';
import { helpButton } from './help';

export type RunState = 'no-gpu' | 'idle' | 'running' | 'stopping' | 'elsewhere';

export type AdapterChoice = 'auto' | 'core' | 'compatibility';

export interface RunSettings {
  adapter: AdapterChoice;
  selfCheck: boolean;
  /** Autosave every this many steps (0: no checkpoints). */
  autosaveEvery: number;
}

export interface RunControls {
  el: HTMLElement;
  onStart(cb: () => void): void;
  onStop(cb: () => void): void;
  onAdapter(cb: (a: AdapterChoice) => void): void;
  onShare(cb: (autostart: boolean) => Promise<string | null>): void;
  settings(): RunSettings | null;
  setSettings(s: Partial<RunSettings>): void;
  /** `why`: a sentence under the buttons when Start is off for a reason other than the state. */
  setState(state: RunState, canStart: boolean, why?: string): void;
  setProgress(fraction: number, label: string): void;
  setStatus(text: string): void;
  setEta(text: string): void;
  setEstimate(what: string, check: TrainCheck | null): void;
}

export function createRunControls(): RunControls {
  const start = h('button', { class: 'primary', text: 'Start', testid: 'start', attrs: { type: 'button' } });
  const stop = h('button', { text: 'Stop', testid: 'stop', attrs: { type: 'button' } });
  const why = h('p', { class: 'why muted', testid: 'start-why' });
  const bar = h('progress', { testid: 'progress', attrs: { max: '1', value: '0', 'aria-label': 'Run progress' } });
  const percent = h('span', { class: 'percent', testid: 'progress-percent', text: '0 %' });
  const status = h('div', { class: 'status', testid: 'run-status', text: 'Waiting for the GPU…', attrs: { 'aria-live': 'polite' } });
  const eta = h('div', { class: 'eta muted', testid: 'eta' });
  const estimate = h('ul', { class: 'fit estimate', testid: 'run-estimate' });

  const adapter = h('select', { testid: 'adapter-choice', attrs: { id: 'run-adapter' } },
    ...[['auto', 'auto (fastest after a probe)'], ['core', 'core (SwiftShader here)'], ['compatibility', 'compatibility (llvmpipe here)']].map(([v, t]) => h('option', { text: t, attrs: { value: v } })));
  const selfCheck = h('input', { testid: 'self-check', attrs: { id: 'run-selfcheck', type: 'checkbox' } });
  selfCheck.checked = true;
  const autosave = h('input', { testid: 'autosave', attrs: { id: 'run-autosave', type: 'text', inputmode: 'numeric', value: '10', size: '4' } });
  const autosaveError = h('span', { class: 'field-error', testid: 'error-autosave', attrs: { 'aria-live': 'polite' } });
  const settingsEl = h('div', { class: 'run-settings' },
    h('div', { class: 'field' }, h('div', { class: 'field-label' }, h('label', { text: 'GPU adapter', attrs: { for: 'run-adapter' } }), ...helpButton('GPU adapter', 'adapter')), adapter),
    h('div', { class: 'field field-bool' }, h('div', { class: 'field-label' }, h('label', { class: 'inline', attrs: { for: 'run-selfcheck' } }, selfCheck, ' Kernel self-check first'), ...helpButton('Kernel self-check', 'selfCheck'))),
    h('div', { class: 'field' }, h('div', { class: 'field-label' }, h('label', { text: 'Autosave every (steps, 0 = off)', attrs: { for: 'run-autosave' } }), ...helpButton('Autosave', 'autosave')), autosave, autosaveError));

  const share = h('button', { text: 'Copy share link', testid: 'share', attrs: { type: 'button' } });
  const shareAuto = h('input', { attrs: { type: 'checkbox', id: 'share-autostart' } });
  const shareOut = h('input', { class: 'share-url', testid: 'share-url', attrs: { type: 'text', readonly: '', 'aria-label': 'Share link' } });
  shareOut.hidden = true;
  const shareStatus = h('span', { class: 'share-status', attrs: { 'aria-live': 'polite' } });
  let shareCb: (autostart: boolean) => Promise<string | null> = async () => null;
  share.addEventListener('click', async () => {
    const url = await shareCb(shareAuto.checked);
    if (!url) {
      shareStatus.textContent = 'fix the fields marked in the pipeline first';
      return;
    }
    shareOut.value = url;
    shareOut.hidden = false;
    try {
      await navigator.clipboard.writeText(url);
      shareStatus.textContent = 'copied';
    } catch {
      shareOut.select();
      shareStatus.textContent = 'select and copy the link';
    }
  });

  const el = h('div', { class: 'run-controls', testid: 'run-controls' },
    estimate,
    h('div', { class: 'buttons' }, start, stop), why,
    h('div', { class: 'progress-row' }, bar, percent),
    status, h('div', { class: 'field-label' }, eta, ...helpButton('time left', 'eta')),
    h('details', { class: 'run-settings-fold' }, h('summary', { text: 'Run settings' }), settingsEl),
    h('div', { class: 'share' }, share, h('label', { class: 'inline', attrs: { for: 'share-autostart' } }, shareAuto, ' start on open'), shareStatus, shareOut));

  /** Focus was on Start or Stop when both went off (stopping): give it to the one that comes back on. */
  let focusPending = false;
  let adapterCb: (a: AdapterChoice) => void = () => {};
  adapter.addEventListener('change', () => adapterCb(adapter.value as AdapterChoice));
  const readAutosave = (): number | null => {
    const t = autosave.value.trim();
    const n = Number(t);
    const ok = /^\d+$/.test(t) && n <= 100_000;
    autosaveError.textContent = ok ? '' : 'Autosave must be a whole number of steps from 0 to 100000';
    autosave.setAttribute('aria-invalid', String(!ok));
    return ok ? n : null;
  };
  autosave.addEventListener('input', () => readAutosave());

  return {
    el,
    onStart: (cb) => start.addEventListener('click', cb),
    onStop: (cb) => stop.addEventListener('click', cb),
    onAdapter: (cb) => void (adapterCb = cb),
    onShare: (cb) => void (shareCb = cb),
    settings() {
      const every = readAutosave();
      return every === null ? null : { adapter: adapter.value as AdapterChoice, selfCheck: selfCheck.checked, autosaveEvery: every };
    },
    setSettings(s) {
      if (s.adapter) adapter.value = s.adapter;
      if (s.selfCheck !== undefined) selfCheck.checked = s.selfCheck;
      if (s.autosaveEvery !== undefined) autosave.value = String(s.autosaveEvery);
    },
    setState(state, canStart, reason = '') {
      el.dataset.state = state;
      const active = document.activeElement;
      const onButtons = active === start || active === stop;
      start.disabled = state !== 'idle' || !canStart;
      stop.disabled = state !== 'running';
      // a keyboard user who pressed Start lands on Stop (and back): a disabled button would drop focus to the page's top
      if (onButtons || (focusPending && (active === null || active === document.body))) {
        const next = !stop.disabled ? stop : !start.disabled ? start : null;
        if (next && next !== active) next.focus();
        focusPending = next === null;
      }
      stop.textContent = state === 'stopping' ? 'Stopping…' : 'Stop';
      const busy = state === 'running' || state === 'stopping';
      for (const c of [adapter, selfCheck, autosave, share, shareAuto]) c.disabled = busy;
      why.textContent = reason;
    },
    setProgress(fraction, label) {
      bar.value = fraction;
      percent.textContent = `${Math.round(fraction * 100)} %`;
      status.textContent = label;
    },
    setStatus(text) {
      status.textContent = text;
    },
    setEta(text) {
      eta.textContent = text;
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
