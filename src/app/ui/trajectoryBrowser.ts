// The trajectory browser: every GRPO sample (grouped by task, with each sample's reward and
// advantage), every evaluation episode, the final model's test episodes and the expert's on the same
// tasks. Filters: source, failed only, task, GRPO step. A sample opens into its transcript (turns,
// tool calls, tool results, simulated-user turns, per-turn tokens and running reward, token-limit
// and truncation marks) and its reward components. Rendering is lazy and paged.
import { type EpisodeFilter, groupEpisodes, NO_FILTER, stepsOf } from '../episodeFilter';
import type { EpisodeView } from '../../workers/runEvents';
import { h, panel } from './dom';
import { helpButton } from './help';
import { componentsEl, transcriptEl } from './transcript';

export interface TrajectoryBrowser {
  el: HTMLElement;
  add(episodes: readonly EpisodeView[]): void;
  reset(episodes?: readonly EpisodeView[]): void;
  readonly count: number;
}

const PAGE = 20; // groups shown before "show more"
const MAX_EPISODES = 4000; // kept in memory (oldest dropped)

function endText(e: EpisodeView): string {
  if (e.end === 'done') return '';
  if (e.end === 'max-tokens') return 'stopped: episode token limit';
  if (e.end === 'max-turns') return 'stopped: turn limit';
  return `stopped: ${e.end}${e.error ? ` (${e.error})` : ''}`;
}

function episodeEl(e: EpisodeView): HTMLElement {
  const bits = [
    e.success ? '✓ solved' : '✗ not solved', `reward ${e.reward.total.toFixed(2)}`,
    e.advantage !== undefined ? `advantage ${e.advantage >= 0 ? '+' : ''}${e.advantage.toFixed(2)}` : '',
    `${e.turns.length} turn${e.turns.length === 1 ? '' : 's'}`, e.tokens ? `${e.tokens} tokens` : '',
  ].filter(Boolean);
  const limit = e.turns.some((t) => t.hitTokenLimit);
  const summary = h('summary', { class: e.success ? 'ok' : 'bad' },
    h('span', { text: `${e.source === 'rollout' ? `sample ${e.sample + 1}` : e.taskId} · ${bits.join(' · ')}` }),
    limit ? h('span', { class: 'tag limit', text: 'token limit' }) : null,
    e.truncated ? h('span', { class: 'tag', text: 'truncated' }) : null);
  const d = h('details', { class: 'episode', testid: 'episode', attrs: { 'data-source': e.source, 'data-success': String(e.success) } }, summary);
  d.addEventListener('toggle', () => {
    if (!d.open || d.childElementCount > 1) return;
    const end = endText(e);
    d.append(h('div', { class: 'episode-body' },
      h('p', { class: 'muted', text: `${e.taskSet} · task ${e.taskId} (${e.category})${end ? ` · ${end}` : ''}` }),
      transcriptEl(e), componentsEl(e.reward)));
  }, { once: false });
  return d;
}

export function createTrajectoryBrowser(): TrajectoryBrowser {
  let episodes: EpisodeView[] = [];
  let filter: EpisodeFilter = { ...NO_FILTER };
  let shown = PAGE;
  const source = h('select', { testid: 'traj-source', attrs: { id: 'traj-source' } },
    ...[['all', 'all episodes'], ['rollout', 'GRPO samples'], ['eval', 'evaluations'], ['final', 'final model & expert']].map(([v, t]) => h('option', { text: t, attrs: { value: v } })));
  const failed = h('input', { testid: 'traj-failed', attrs: { type: 'checkbox', id: 'traj-failed' } });
  const task = h('input', { testid: 'traj-task', attrs: { type: 'search', id: 'traj-task', placeholder: 'task id, category or task set' } });
  const step = h('select', { testid: 'traj-step', attrs: { id: 'traj-step' } }, h('option', { text: 'every step', attrs: { value: '' } }));
  const count = h('p', { class: 'muted', testid: 'traj-count', attrs: { 'aria-live': 'polite' } });
  const list = h('div', { class: 'traj-list', testid: 'traj-list' });
  const more = h('button', { class: 'small', text: 'Show more', attrs: { type: 'button' } });
  const filters = h('div', { class: 'traj-filters' },
    h('label', { attrs: { for: 'traj-source' } }, 'Show ', source),
    h('label', { class: 'inline', attrs: { for: 'traj-failed' } }, failed, ' failed only'),
    h('label', { attrs: { for: 'traj-task' } }, 'Task ', task),
    h('label', { attrs: { for: 'traj-step' } }, 'Step ', step));
  const el = panel('Trajectories', 'trajectory-panel',
    h('p', { class: 'hint' }, 'What the agent did: every GRPO sample by group, every evaluation episode, and the final model beside the expert. ', ...helpButton('advantage', 'advantage')),
    filters, count, list, more);

  let pending = false;
  const render = () => {
    pending = false;
    const groups = groupEpisodes(episodes, filter);
    const total = groups.reduce((a, g) => a + g.episodes.length, 0);
    count.textContent = episodes.length === 0 ? 'Episodes appear here while the run plays them.' : `${total} of ${episodes.length} episodes in ${groups.length} group${groups.length === 1 ? '' : 's'}`;
    list.replaceChildren(...groups.slice(0, shown).map((g) => {
      const rewards = g.episodes.map((e) => e.reward.total.toFixed(2)).join(' / ');
      const dropped = g.episodes[0].groupKept === false ? ' · dropped (no signal)' : '';
      return h('section', { class: 'traj-group', testid: 'traj-group' },
        h('h3', { text: `${g.title}${g.episodes.length > 1 ? ` · rewards ${rewards}` : ''}${dropped}` }),
        ...g.episodes.map(episodeEl));
    }));
    more.hidden = groups.length <= shown;
  };
  const schedule = () => {
    if (pending) return;
    pending = true;
    setTimeout(render, 300); // batches of episodes arrive together: render once
  };
  const refilter = () => {
    filter = { source: source.value as EpisodeFilter['source'], failedOnly: failed.checked, task: task.value, step: step.value === '' ? null : Number(step.value) };
    shown = PAGE;
    render();
  };
  const refreshSteps = () => {
    const have = new Set([...step.options].map((o) => o.value));
    for (const s of stepsOf(episodes)) if (!have.has(String(s))) step.append(h('option', { text: `GRPO step ${s}`, attrs: { value: String(s) } }));
  };
  for (const c of [source, failed, step]) c.addEventListener('change', refilter);
  task.addEventListener('input', refilter);
  more.addEventListener('click', () => {
    shown += PAGE;
    render();
  });
  render();
  return {
    el,
    add(eps) {
      episodes.push(...eps);
      if (episodes.length > MAX_EPISODES) episodes = episodes.slice(-MAX_EPISODES);
      refreshSteps();
      schedule();
    },
    reset(eps = []) {
      episodes = [...eps];
      step.replaceChildren(h('option', { text: 'every step', attrs: { value: '' } }));
      refreshSteps();
      render();
    },
    get count() {
      return episodes.length;
    },
  };
}
