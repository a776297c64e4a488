// Form fields bound to a path in the draft pipeline config ("stages.1.lr"): a label, the input, a
// help popover and the validation message for that path. Numbers are read strictly (form text,
// not type=number, which would turn "3e-3x" into "" silently); unparsable text is reported by path.
import { type FieldErrors, parseNumber } from '../pipelineDraft';
import { h } from './dom';
import { type HelpKey, helpButton } from './help';

export type FieldKind = 'int' | 'num' | 'text' | 'select' | 'bool';

export interface SelectOption {
  value: string;
  label: string;
}

export interface FieldSpec {
  path: string;
  label: string;
  kind: FieldKind;
  help?: HelpKey;
  options?: readonly SelectOption[];
  /** Placeholder/hint under the input. */
  hint?: string;
  /** Selects: the draft value of an option (default the option's text); text fields: the draft value of the text. */
  parse?: (value: string) => unknown;
  /** Text fields: how the draft value is shown (default String(value)). */
  format?: (value: unknown) => string;
}

/** What every field of one form shares: the draft it edits, its inputs and message elements by path. */
export interface FieldContext {
  draft: Record<string, unknown>;
  /** Text that is not a number, by path (merged with the schema's messages). */
  unparsable: FieldErrors;
  inputs: Map<string, HTMLInputElement | HTMLSelectElement>;
  messages: Map<string, HTMLElement>;
  /** Called after every edit. */
  edited(): void;
}

export function getPath(o: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((x, k) => (x === null || x === undefined ? undefined : (x as Record<string, unknown>)[k]), o);
}

export function setPath(o: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let x: Record<string, unknown> = o;
  for (const k of keys.slice(0, -1)) {
    if (typeof x[k] !== 'object' || x[k] === null) x[k] = {};
    x = x[k] as Record<string, unknown>;
  }
  const last = keys[keys.length - 1];
  if (value === undefined) delete x[last];
  else x[last] = value;
}

export const fieldId = (path: string) => `pf-${path.replace(/[^A-Za-z0-9]+/g, '-')}`;

/**
 * A select's options with the draft's value among them: a shared or hand-edited config may spell a
 * value that no option lists (`"advantage": "std"`, the default written out; `"staleness": 3`), and
 * a select set to a missing value shows blank while the run uses the value. Such a value gets an
 * option of its own, labelled as coming from the config, so the form shows what will run.
 */
export function optionsShowing(options: readonly SelectOption[], value: unknown): readonly SelectOption[] {
  if (value === undefined || value === null) return options;
  const v = String(value);
  return options.some((o) => o.value === v) ? options : [...options, { value: v, label: `${v} (from the config)` }];
}

/** Renders one field and binds it to ctx.draft at spec.path. */
export function field(ctx: FieldContext, spec: FieldSpec): HTMLElement {
  const id = fieldId(spec.path);
  const value = getPath(ctx.draft, spec.path);
  let input: HTMLInputElement | HTMLSelectElement;
  if (spec.kind === 'select') {
    input = h('select', { attrs: { id, name: spec.path } }, ...optionsShowing(spec.options ?? [], value).map((o) => h('option', { text: o.label, attrs: { value: o.value } })));
    input.value = String(value ?? '');
  } else if (spec.kind === 'bool') {
    input = h('input', { attrs: { id, name: spec.path, type: 'checkbox' } });
    input.checked = value === true;
  } else {
    input = h('input', { attrs: { id, name: spec.path, type: 'text', autocomplete: 'off', spellcheck: 'false', ...(spec.kind === 'text' ? {} : { inputmode: spec.kind === 'int' ? 'numeric' : 'decimal' }) } });
    input.value = value === undefined || value === null ? '' : spec.format ? spec.format(value) : String(value);
  }
  const message = h('span', { class: 'field-error', testid: `error-${spec.path}`, attrs: { id: `${id}-error`, 'aria-live': 'polite' } });
  const hint = spec.hint ? h('span', { class: 'hint', text: spec.hint, attrs: { id: `${id}-hint` } }) : null;
  input.setAttribute('aria-describedby', [hint ? `${id}-hint` : '', `${id}-error`].filter(Boolean).join(' '));
  input.dataset.path = spec.path;
  const read = () => {
    ctx.unparsable.delete(spec.path);
    let v: unknown;
    if (input instanceof HTMLInputElement && input.type === 'checkbox') v = input.checked;
    else if (spec.kind === 'int' || spec.kind === 'num') {
      v = parseNumber(input.value);
      if (Number.isNaN(v)) ctx.unparsable.set(spec.path, 'must be a number');
    } else v = spec.parse ? spec.parse(input.value) : input.value;
    setPath(ctx.draft, spec.path, v);
    ctx.edited();
  };
  input.addEventListener('input', read);
  input.addEventListener('change', read);
  ctx.inputs.set(spec.path, input);
  ctx.messages.set(spec.path, message);
  const label = h('label', { text: spec.label, attrs: { for: id } });
  const help = spec.help ? helpButton(spec.label, spec.help) : [];
  return h('div', { class: `field field-${spec.kind}` }, h('div', { class: 'field-label' }, label, ...help), input, hint, message);
}

/** Shows each path's message next to its field; the rest (no field shows that path) in `rest`. */
export function showErrors(ctx: FieldContext, errors: FieldErrors, labels: Map<string, string>, rest: HTMLElement): void {
  const shown = new Set<string>();
  for (const [path, el] of ctx.messages) {
    const msg = errors.get(path);
    el.textContent = msg ? `${labels.get(path) ?? path} ${msg}` : '';
    ctx.inputs.get(path)?.setAttribute('aria-invalid', msg ? 'true' : 'false');
    if (msg) shown.add(path);
  }
  const others = [...errors].filter(([path]) => !shown.has(path)).map(([path, m]) => (path ? `${path}: ${m}` : m));
  rest.textContent = others.join(' · ');
}
