// The RunConfig form: one input per RUN_CONFIG_FIELDS entry, validated on every edit with the zod
// schema; each message appears next to its field. Also the share link (copy / open).
import { type RunConfig, type RunConfigErrors, type RunConfigField, RUN_CONFIG_FIELDS, TRAINABLE_PRESETS, fromFormValues, toFormValues, validateRunConfig } from '../runConfig';
import { shareUrl } from '../shareLink';
import { h, panel } from './dom';

export interface ConfigForm {
  el: HTMLElement;
  /** The current values, validated (messages are shown next to the fields as a side effect). */
  read(): ReturnType<typeof validateRunConfig>;
  set(config: RunConfig): void;
  setDisabled(disabled: boolean): void;
  /** Called after every edit with the validation result. */
  onChange(cb: (r: ReturnType<typeof validateRunConfig>) => void): void;
}

export function createConfigForm(): ConfigForm {
  const inputs = new Map<RunConfigField, HTMLInputElement | HTMLSelectElement>();
  const errors = new Map<RunConfigField, HTMLElement>();
  const listeners: ((r: ReturnType<typeof validateRunConfig>) => void)[] = [];

  const rows = RUN_CONFIG_FIELDS.map((f) => {
    const id = `cfg-${f.name}`;
    let input: HTMLInputElement | HTMLSelectElement;
    if (f.kind === 'select') {
      input = h('select', { attrs: { id, name: f.name } }, ...TRAINABLE_PRESETS.map((p) => h('option', { text: p, attrs: { value: p } })));
    } else if (f.kind === 'checkbox') {
      input = h('input', { attrs: { id, name: f.name, type: 'checkbox' } });
    } else {
      // Text, not type=number: the browser would turn "3e-3x" into "" silently; the schema explains instead.
      input = h('input', { attrs: { id, name: f.name, type: 'text', inputmode: f.kind === 'integer' ? 'numeric' : 'decimal', autocomplete: 'off', spellcheck: 'false' } });
    }
    const error = h('span', { class: 'field-error', attrs: { id: `${id}-error`, 'aria-live': 'polite' }, testid: `error-${f.name}` });
    input.setAttribute('aria-describedby', `${id}-hint ${id}-error`);
    inputs.set(f.name, input);
    errors.set(f.name, error);
    input.addEventListener('input', () => notify());
    input.addEventListener('change', () => notify());
    return h('div', { class: `field field-${f.kind}` },
      h('label', { text: f.label, attrs: { for: id } }),
      input,
      h('span', { class: 'hint', text: f.hint, attrs: { id: `${id}-hint` } }),
      error);
  });

  const formErrors = h('p', { class: 'field-error', testid: 'error-form' });
  const form = h('form', { class: 'config-form', testid: 'config-form', attrs: { novalidate: '' } }, ...rows, formErrors);
  form.addEventListener('submit', (e) => e.preventDefault());

  const values = () => {
    const out = {} as Record<RunConfigField, string | boolean>;
    for (const [name, input] of inputs) out[name] = input instanceof HTMLInputElement && input.type === 'checkbox' ? input.checked : input.value;
    return out;
  };

  const showErrors = (errs: RunConfigErrors) => {
    for (const [name, el] of errors) {
      el.textContent = errs[name] ? `${RUN_CONFIG_FIELDS.find((f) => f.name === name)!.label} ${errs[name]}` : '';
      inputs.get(name)!.setAttribute('aria-invalid', errs[name] ? 'true' : 'false');
    }
    formErrors.textContent = errs.form ?? '';
  };

  const read = () => {
    const r = validateRunConfig(fromFormValues(values()));
    showErrors(r.ok ? {} : r.errors);
    return r;
  };

  // Share link: the current config in the URL fragment.
  const linkOut = h('input', { class: 'share-url', testid: 'share-url', attrs: { type: 'text', readonly: '', 'aria-label': 'Share link' } });
  const autostart = h('input', { attrs: { type: 'checkbox', id: 'share-autostart' } });
  linkOut.hidden = true;
  const shareStatus = h('span', { class: 'share-status' });
  const makeLink = async () => {
    const r = read();
    if (!r.ok) {
      shareStatus.textContent = 'fix the fields marked above first';
      return;
    }
    const url = shareUrl(location.href, r.config, { autostart: autostart.checked });
    linkOut.value = url;
    linkOut.hidden = false;
    history.replaceState(null, '', url);
    try {
      await navigator.clipboard.writeText(url);
      shareStatus.textContent = 'copied';
    } catch {
      linkOut.select();
      shareStatus.textContent = 'select and copy the link';
    }
  };
  const share = h('div', { class: 'share' },
    h('button', { text: 'Copy share link', testid: 'share', attrs: { type: 'button' }, on: { click: () => void makeLink() } }),
    h('label', { class: 'inline' }, autostart, ' start on open'),
    shareStatus,
    linkOut);

  function notify() {
    const r = read();
    shareStatus.textContent = '';
    for (const cb of listeners) cb(r);
  }

  const el = panel('Run configuration', 'config-panel', form, share);
  return {
    el,
    read,
    set(config) {
      const v = toFormValues(config);
      for (const [name, input] of inputs) {
        if (input instanceof HTMLInputElement && input.type === 'checkbox') input.checked = v[name] === true;
        else input.value = String(v[name]);
      }
      notify();
    },
    setDisabled(disabled) {
      for (const input of inputs.values()) input.disabled = disabled;
    },
    onChange(cb) {
      listeners.push(cb);
    },
  };
}
