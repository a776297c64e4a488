// The pipeline editor: the PipelineConfig itself (src/pipeline/config.ts) as a form — one-click
// example pipelines, model preset and seed, the task mix (task sets, levels, weights), the episode
// context (fitted to the task sets unless edited), LoRA, and the ordered stages (SFT, GRPO, merge,
// evaluation: add, move, remove, their main hyper-parameters). Every edit is validated with the schema; each
// message sits next to its field.
import { TASK_FAMILY_NAMES, type TaskFamilyName } from '../../envs/familyNames';
import { PIPELINE_CONFIG_VERSION, PIPELINE_PRESETS, type PipelineConfig, type StageConfig } from '../../pipeline/config';
import { BUNDLED_MODELS } from '../../model/bundledModels';
import { EXAMPLE_PIPELINES } from '../../pipeline/presets';
import { checkDraft, clone, DEFAULT_PIPELINE, type FieldErrors, fittedContext, levelsOf, newStage } from '../pipelineDraft';
import { h, panel } from './dom';
import { field, type FieldContext, type FieldSpec, showErrors } from './fields';
import { helpButton } from './help';
import { STAGE_TITLES, stageFields } from './stageFields';

export interface EditorState {
  config: PipelineConfig | null;
  errors: FieldErrors;
}

export interface PipelineEditor {
  el: HTMLElement;
  read(): EditorState;
  /** Shows a config (an example, a share link, a run from the history). */
  set(config: PipelineConfig, title?: string): void;
  /** The example the config came from, or "custom pipeline" once edited. */
  title(): string;
  setDisabled(disabled: boolean): void;
  onChange(cb: (s: EditorState) => void): void;
}

const PRESET_LABELS: Record<string, string> = {
  nano: 'nano · 0.43 M, byte tokens, 512 positions', 'nano-q': 'nano-q · 0.98 M, trimmed Qwen3 vocabulary, 6 144 positions',
  tiny: 'tiny · 5 M, byte tokens', 'tiny-q': 'tiny-q · 5.9 M, trimmed Qwen3 vocabulary', small: 'small · 30 M, byte tokens',
  'qwen3-0.6b': 'qwen3-0.6b · needs its weights (Load model)',
};
const FAMILY_LABELS: Record<TaskFamilyName, string> = { 'function-calling': 'function calling', service: 'customer service', coding: 'coding' };

export function createPipelineEditor(): PipelineEditor {
  let draft = clone(DEFAULT_PIPELINE) as unknown as Record<string, unknown>;
  let currentTitle = EXAMPLE_PIPELINES[0].title;
  let autoContext = true;
  let disabled = false;
  const listeners: ((s: EditorState) => void)[] = [];
  const labels = new Map<string, string>();
  const formErrors = h('p', { class: 'field-error form-errors', testid: 'error-form', attrs: { 'aria-live': 'polite' } });
  const body = h('div', { class: 'pipeline-body' });
  const summary = h('p', { class: 'example-summary muted', testid: 'example-summary' });
  let ctx: FieldContext;

  const cfgDraft = () => draft as unknown as PipelineConfig;

  const state = (): EditorState => {
    const r = checkDraft(draft, ctx.unparsable);
    showErrors(ctx, r.errors, labels, formErrors);
    return r;
  };
  const notify = () => {
    const s = state();
    for (const l of listeners) l(s);
  };
  const edited = () => {
    const lora = draft.lora as Record<string, unknown> | undefined;
    if (lora && Object.keys(lora).length === 0) delete draft.lora; // both LoRA fields empty: full fine-tuning
    const start = draft.start as Record<string, unknown> | undefined;
    if (start && Object.keys(start).length === 0) delete draft.start; // "random init": no start field
    currentTitle = 'custom pipeline';
    summary.textContent = 'Edited: a custom pipeline.';
    if (autoContext) fitContext(false);
    notify();
  };

  /** Context from the task mix (auto mode); updates the shown inputs without a re-render. */
  const fitContext = (render: boolean) => {
    const c = fittedContext(cfgDraft());
    if (!c) return;
    draft.context = c;
    if (!render) for (const k of Object.keys(c) as (keyof typeof c)[]) {
      const input = ctx.inputs.get(`context.${k}`);
      if (input) input.value = String(c[k]);
    }
  };

  /** The selector that finds a control again after a re-render: its id, test id or aria-label. */
  const focusKey = (el: Element | null): string | null => {
    if (!(el instanceof HTMLElement) || !body.contains(el)) return null;
    if (el.id) return `#${CSS.escape(el.id)}`;
    if (el.dataset.testid) return `[data-testid="${el.dataset.testid}"]`;
    const aria = el.getAttribute('aria-label');
    return aria ? `[aria-label="${aria}"]` : null;
  };

  /**
   * An edit that changes the form's shape: re-render, and keep the keyboard's place — the control
   * that had focus (by id, test id or label), else the first of `focusNext` that is there and enabled
   * (a removed stage's neighbour, a moved stage's button), so focus never falls back to the page's top.
   */
  const structural = (change: () => void, focusNext: string[] = []) => {
    const had = focusKey(document.activeElement);
    change();
    currentTitle = 'custom pipeline';
    summary.textContent = 'Edited: a custom pipeline.';
    if (autoContext) fitContext(true);
    render();
    notify();
    if (!had) return;
    const candidates = [...(focusNext.length ? focusNext : [had]), had];
    for (const sel of candidates) {
      const el = body.querySelector<HTMLButtonElement | HTMLInputElement>(sel);
      if (el && !el.disabled) {
        el.focus();
        return;
      }
    }
  };

  const fieldOf = (spec: FieldSpec) => {
    labels.set(spec.path, spec.label);
    return field(ctx, spec);
  };

  const button = (text: string, aria: string, onClick: () => void, testid?: string) =>
    h('button', { class: 'small', text, testid, attrs: { type: 'button', 'aria-label': aria }, on: { click: onClick } });

  function taskRows(): HTMLElement {
    const tasks = cfgDraft().tasks ?? [];
    const rows = tasks.map((e, i) => {
      const family = fieldOf({ path: `tasks.${i}.family`, label: 'Family', kind: 'select', options: TASK_FAMILY_NAMES.map((f) => ({ value: f, label: FAMILY_LABELS[f] })) });
      const levels = levelsOf(e.family);
      const level = fieldOf({ path: `tasks.${i}.level`, label: 'Task set', kind: 'select', options: levels.map((l) => ({ value: l.level, label: l.train ? l.level : `${l.level} (evaluation only)` })) });
      const weight = fieldOf({ path: `tasks.${i}.weight`, label: 'Weight', kind: 'num' });
      // a family change resets the level to the family's first
      ctx.inputs.get(`tasks.${i}.family`)!.addEventListener('change', () => structural(() => (tasks[i] = { family: tasks[i].family, level: levelsOf(tasks[i].family)[0].level, weight: tasks[i].weight })));
      ctx.inputs.get(`tasks.${i}.level`)!.addEventListener('change', () => structural(() => undefined));
      const description = h('p', { class: 'hint', text: levels.find((l) => l.level === e.level)?.description ?? '' });
      const remove = button('✕', `Remove task set ${i + 1}`, () => structural(() => tasks.splice(i, 1), [`[aria-label="Remove task set ${i + 1}"]`, `[aria-label="Remove task set ${i}"]`, '[data-testid="add-task"]']));
      remove.dataset.keepDisabled = String(tasks.length <= 1);
      return h('div', { class: 'task-row', testid: 'task-row' }, family, level, weight, remove, description);
    });
    const add = button('+ Task set', 'Add a task set', () => structural(() => tasks.push({ family: 'service', level: 'retail', weight: 1 })), 'add-task');
    return h('fieldset', { class: 'tasks' }, h('legend', {}, 'Task sets ', ...helpButton('Task sets', 'tasks')), ...rows, add);
  }

  function contextRows(): HTMLElement {
    const auto = h('input', { testid: 'context-auto', attrs: { type: 'checkbox', id: 'pf-context-auto' } });
    auto.checked = autoContext;
    auto.addEventListener('change', () => {
      autoContext = auto.checked;
      structural(() => undefined);
    });
    const fields = [
      fieldOf({ path: 'context.maxTotalTokens', label: 'Episode tokens', kind: 'int' }),
      fieldOf({ path: 'context.maxNewTokensPerTurn', label: 'Tokens per turn', kind: 'int' }),
      fieldOf({ path: 'context.maxTurns', label: 'Turns', kind: 'int' }),
    ];
    return h('fieldset', { class: 'context' }, h('legend', {}, 'Episode limits ', ...helpButton('Episode limits', 'context')),
      h('label', { class: 'inline', attrs: { for: 'pf-context-auto' } }, auto, ' Fit to the task sets'), h('div', { class: 'grid3' }, ...fields));
  }

  function stageBlock(s: StageConfig, i: number, n: number): HTMLElement {
    const stages = cfgDraft().stages;
    // focus follows the moved stage (its same button, else its other one)
    const move = (d: number) => structural(() => {
      const [x] = stages.splice(i, 1);
      stages.splice(i + d, 0, x);
    }, [`[aria-label="Move stage ${i + d + 1} ${d < 0 ? 'up' : 'down'}"]`, `[aria-label="Move stage ${i + d + 1} ${d < 0 ? 'down' : 'up'}"]`]);
    const up = button('↑', `Move stage ${i + 1} up`, () => move(-1));
    const down = button('↓', `Move stage ${i + 1} down`, () => move(1));
    const remove = button('✕', `Remove stage ${i + 1}`, () => structural(() => stages.splice(i, 1), [`[data-testid="remove-stage-${i}"]`, `[data-testid="remove-stage-${i - 1}"]`, '[data-testid="add-sft"]']), `remove-stage-${i}`);
    up.dataset.keepDisabled = String(i === 0);
    down.dataset.keepDisabled = String(i === n - 1);
    const kind = s.kind as StageConfig['kind'];
    const help = helpButton(STAGE_TITLES[kind], kind);
    return h('fieldset', { class: `stage stage-${kind}`, testid: `stage-${i}` },
      h('legend', {}, `${i + 1}. ${STAGE_TITLES[kind]}${kind === 'eval' ? ` (${(s as { label?: string }).label ?? ''})` : ''} `, ...help),
      h('div', { class: 'stage-tools' }, up, down, remove),
      h('div', { class: 'grid3' }, ...stageFields(kind, i).map(fieldOf)));
  }

  function render(): void {
    ctx = { draft, unparsable: new Map(), inputs: new Map(), messages: new Map(), edited };
    labels.clear();
    const cfg = cfgDraft();
    const basics = h('div', { class: 'grid3' },
      fieldOf({ path: 'preset', label: 'Model', kind: 'select', help: 'preset', options: PIPELINE_PRESETS.map((p) => ({ value: p, label: PRESET_LABELS[p] ?? p })) }),
      fieldOf({ path: 'start.bundled', label: 'Start weights', kind: 'select', help: 'start', options: [{ value: '', label: 'random init (seeded)' }, ...BUNDLED_MODELS.map((m) => ({ value: m.id, label: m.label }))], parse: (v) => (v === '' ? undefined : v) }),
      fieldOf({ path: 'seed', label: 'Seed', kind: 'int', help: 'seed' }),
      fieldOf({ path: 'lora.rank', label: 'LoRA rank', kind: 'int', help: 'loraRank', hint: 'empty: full fine-tuning' }),
      fieldOf({ path: 'lora.alpha', label: 'LoRA α', kind: 'num', help: 'loraAlpha', hint: 'empty: 2 × rank' }));
    const stages = (cfg.stages ?? []).map((s, i, all) => stageBlock(s, i, all.length));
    const addStage = (k: StageConfig['kind']) => button(`+ ${STAGE_TITLES[k]}`, `Add a${k === 'eval' ? 'n evaluation' : ` ${STAGE_TITLES[k]}`} stage`, () => structural(() => cfg.stages.push(newStage(k, cfg))), `add-${k}`);
    body.replaceChildren(basics, taskRows(), contextRows(),
      h('div', { class: 'stages', testid: 'stages' }, ...stages),
      h('div', { class: 'add-stage' }, addStage('sft'), addStage('grpo'), addStage('merge'), addStage('eval')));
    setDisabled(disabled);
  }

  const examples = h('div', { class: 'examples', testid: 'examples', attrs: { role: 'group', 'aria-label': 'Example pipelines' } },
    ...EXAMPLE_PIPELINES.map((x) => h('button', { class: 'example', text: x.title, testid: `example-${x.id}`, attrs: { type: 'button', title: x.summary }, on: { click: () => api.set(x.config, x.title) } })));

  function setDisabled(d: boolean): void {
    disabled = d;
    for (const el of body.querySelectorAll<HTMLInputElement | HTMLSelectElement | HTMLButtonElement>('input, select, button:not(.help)')) {
      const context = el.dataset.path?.startsWith('context.');
      el.disabled = d || (context === true && autoContext) || (el.dataset.keepDisabled === 'true');
    }
    for (const b of examples.querySelectorAll('button')) b.disabled = d;
  }

  const api: PipelineEditor = {
    el: panel('Pipeline', 'config-panel',
      h('p', { class: 'hint' }, 'Start from an example, then edit anything: what the agent practises, the model, and the stages in order.'),
      examples, summary, body, formErrors),
    read: state,
    set(config, title) {
      draft = clone(config) as unknown as Record<string, unknown>;
      const fitted = fittedContext(config);
      autoContext = fitted !== null && JSON.stringify(fitted) === JSON.stringify(config.context);
      currentTitle = title ?? EXAMPLE_PIPELINES.find((x) => JSON.stringify(x.config) === JSON.stringify(config))?.title ?? 'custom pipeline';
      summary.textContent = EXAMPLE_PIPELINES.find((x) => x.title === currentTitle)?.summary ?? 'A custom pipeline.';
      render();
      notify();
    },
    title: () => currentTitle,
    setDisabled,
    onChange: (cb) => void listeners.push(cb),
  };
  draft.version = PIPELINE_CONFIG_VERSION;
  render();
  summary.textContent = EXAMPLE_PIPELINES[0].summary;
  return api;
}
