// The playground: type a request to the model the last run trained, in one of its task sets'
// environments (that set's system prompt and tools), and watch it answer turn by turn: tool calls
// (checked), the tool results the environment returns, the simulated user's replies.
import type { TaskFamilyName } from '../../envs/familyNames';
import type { PipelineConfig } from '../../pipeline/config';
import type { EpisodeView, MessageView, WorkerFailure } from '../../workers/runEvents';
import { levelsOf } from '../pipelineDraft';
import { h, panel } from './dom';
import { messageEl, transcriptEl } from './transcript';

export interface PlaygroundAsk {
  family: TaskFamilyName;
  level?: string;
  text: string;
  temperature: number;
  seed: number;
}

export interface Playground {
  el: HTMLElement;
  /** The trained model it talks to (null: none yet). */
  setModel(model: { label: string; config: PipelineConfig } | null): void;
  setBusy(busy: boolean): void;
}

const SUGGESTIONS: Record<string, string> = {
  route4: 'What is the weather in Lisbon right now?',
  route8: 'How much is one share of NVDA today?',
  'route8-multi': 'What time is it in Tokyo, and what does "ephemeral" mean?',
  route4b: 'Any news about AAPL today?',
  bfcl: 'Book a table for 4 at an Italian restaurant in Chicago tomorrow at 7 pm.',
  retail: 'Hi, I want to return the headphones from my last order.',
  functions: 'Write a function that returns the sum of the even numbers in an array.',
};

export function createPlayground(ask: (a: PlaygroundAsk, onMessage: (m: MessageView) => void) => Promise<EpisodeView | WorkerFailure>): Playground {
  const taskSet = h('select', { testid: 'play-taskset', attrs: { id: 'play-taskset' } });
  const text = h('textarea', { testid: 'play-text', attrs: { id: 'play-text', rows: '2', maxlength: '2000', placeholder: 'Type a request for the agent…' } });
  const temperature = h('input', { testid: 'play-temperature', attrs: { id: 'play-temperature', type: 'text', inputmode: 'decimal', value: '0', size: '4' } });
  const go = h('button', { class: 'primary', text: 'Ask', testid: 'play-ask', attrs: { type: 'button' } });
  const status = h('p', { class: 'muted', testid: 'play-status', attrs: { 'aria-live': 'polite' }, text: 'Train a model first: the playground talks to the model the last run trained.' });
  const out = h('div', { class: 'conversation', testid: 'play-transcript', attrs: { 'aria-live': 'polite' } });
  const el = panel('Playground', 'playground-panel',
    h('div', { class: 'play-row' },
      h('label', { attrs: { for: 'play-taskset' } }, 'Tools of ', taskSet),
      h('label', { attrs: { for: 'play-temperature' } }, 'Temperature ', temperature)),
    h('label', { class: 'sr-only', attrs: { for: 'play-text' } }, 'Request'), text, h('div', { class: 'buttons' }, go), status, out);
  let model: { label: string; config: PipelineConfig } | null = null;
  let busy = false;
  const sync = () => {
    for (const c of [taskSet, text, temperature, go]) c.disabled = busy || model === null;
  };
  const submit = async () => {
    if (!model || busy || text.value.trim() === '') return;
    const [family, level] = taskSet.value.split('/') as [TaskFamilyName, string];
    const t = Number(temperature.value);
    if (!Number.isFinite(t) || t < 0 || t > 2) {
      status.textContent = 'Temperature must be a number from 0 (greedy) to 2.';
      return;
    }
    busy = true;
    sync();
    out.replaceChildren();
    status.textContent = `Asking ${model.label}…`;
    let users = 0;
    const r = await ask({ family, level, text: text.value, temperature: t, seed: model.config.seed }, (m) => {
      if (m.role === 'user') users++;
      out.append(m.role === 'system' ? h('details', { class: 'msg-system-fold', attrs: { 'data-role': 'system' } }, h('summary', { text: 'system prompt and tools' }), messageEl(m)) : messageEl(m, users));
    });
    busy = false;
    sync();
    if ('code' in r) status.textContent = `The playground could not run: ${r.message}`;
    else {
      out.replaceChildren(...transcriptEl(r).children);
      const calls = r.messages.filter((m) => m.role === 'assistant' && m.content.includes('<tool_call>')).length;
      const limit = r.turns.some((x) => x.hitTokenLimit) ? ' One turn hit the token limit.' : '';
      status.textContent = `${r.turns.length} assistant turn${r.turns.length === 1 ? '' : 's'}, ${calls} with a tool call.${limit} (The task's reward is not shown: it scores the original task, not your request.)`;
    }
  };
  go.addEventListener('click', () => void submit());
  text.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) void submit();
  });
  taskSet.addEventListener('change', () => {
    const level = taskSet.value.split('/')[1];
    if (text.value === '' || Object.values(SUGGESTIONS).includes(text.value)) text.value = SUGGESTIONS[level] ?? '';
  });
  sync();
  return {
    el,
    setModel(m) {
      model = m;
      taskSet.replaceChildren(...(m?.config.tasks ?? []).map((e) => {
        const name = `${e.family}/${e.level ?? levelsOf(e.family)[0].level}`;
        return h('option', { text: name, attrs: { value: name } });
      }));
      const level = taskSet.value.split('/')[1];
      if (m && text.value === '') text.value = SUGGESTIONS[level] ?? '';
      status.textContent = m ? `Talking to ${m.label}. Ctrl+Enter asks.` : 'Train a model first: the playground talks to the model the last run trained.';
      sync();
    },
    setBusy(b) {
      busy = b;
      sync();
    },
  };
}
