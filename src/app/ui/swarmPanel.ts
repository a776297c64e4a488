// The swarm panel: start a run shared across tabs (and, with a relay, machines), the "join this
// run" link, and the swarm itself — each member's role, weights version, rollouts/s, whether its tab
// is visible (hidden tabs are throttled by the browser) — with what happened (takeovers, drops,
// refusals) and how many trajectories each member's rollouts gave the leader.
import type { SwarmView } from '../../shard/session';
import { h, panel } from './dom';

export interface SwarmPanel {
  el: HTMLElement;
  show(v: SwarmView, joinUrl: string): void;
  /** A problem with the link or the run, for the person (null clears it). */
  showError(message: string | null): void;
  /** `world`: data parallel over that many tabs; absent: rollout tabs. */
  onStart(f: (opts: { relay: string; world?: number }) => void): void;
  onLeave(f: () => void): void;
}

/** The tab column: frozen tabs get no work until they resume; hidden ones are throttled but play. */
const tabState = (m: { visible: boolean; lifecycle?: string }) =>
  m.lifecycle === 'frozen' ? 'frozen (paused: its work went to others)' : m.lifecycle === 'hidden' || !m.visible ? 'hidden (throttled)' : 'visible';

const short = (id: string) => (id.length > 16 ? `${id.slice(0, 6)}…${id.slice(-6)}` : id);

export function createSwarmPanel(): SwarmPanel {
  const error = h('p', { class: 'swarm-error', testid: 'swarm-error', attrs: { role: 'alert', hidden: '' } });
  const relay = h('input', { testid: 'swarm-relay', attrs: { type: 'text', 'aria-label': 'Relay address for other machines (optional)', placeholder: 'relay address for other machines (optional): /ip4/…/ws/p2p/…', size: '48' } });
  const start = h('button', { testid: 'swarm-start', text: 'Start a swarm run' });
  const mode = h('select', { testid: 'swarm-mode', attrs: { 'aria-label': 'How the tabs share the run' } },
    h('option', { text: 'rollout tabs (other tabs play, this tab trains)', attrs: { value: 'rollout' } }),
    h('option', { text: 'data parallel (every tab trains its share of each batch)', attrs: { value: 'dp' } }));
  const world = h('input', { testid: 'swarm-world', attrs: { type: 'number', min: '1', max: '16', value: '2', 'aria-label': 'Tabs in the data-parallel run (this one included)' } });
  const worldLabel = h('label', { attrs: { hidden: '' } }, 'tabs: ', world);
  mode.addEventListener('change', () => {
    worldLabel.hidden = mode.value !== 'dp';
  });
  const setup = h('div', { class: 'swarm-setup' },
    h('p', { text: 'Spread this run over several tabs — rollouts in the other tabs with training here, or data parallel: every tab trains its share of each step\'s batch and the gradients are summed across tabs (the run starts once that many tabs opened its link) — or over machines through a libp2p relay (npm run relay; data parallel: up to 8 machines).' }),
    mode, ' ', worldLabel, ' ', relay, ' ', start);
  const link = h('input', { testid: 'swarm-link', attrs: { type: 'text', readonly: '', size: '48' } });
  const copy = h('button', { text: 'Copy', on: { click: () => void navigator.clipboard?.writeText(link.value) } });
  const leave = h('button', { testid: 'swarm-leave', text: 'Leave' });
  const status = h('p', { testid: 'swarm-status' });
  const rows = h('tbody');
  const table = h('table', { class: 'swarm-members', testid: 'swarm-members' },
    h('thead', {}, h('tr', {}, ...['member', 'role', 'weights', 'rollouts/s', 'trajectories', 'tab', 'state'].map((t) => h('th', { text: t })))), rows);
  const notes = h('ul', { class: 'swarm-notes', testid: 'swarm-notes' });
  const live = h('div', { class: 'swarm-live', attrs: { hidden: '' } },
    h('p', {}, 'Join this run (the link carries the run\'s secret: share it only with people who may join): '), link, ' ', copy, ' ', leave,
    status, table, notes);
  const el = panel('Swarm', 'swarm-panel', error, setup, live);
  return {
    el,
    show(v, joinUrl) {
      setup.hidden = true;
      live.hidden = false;
      link.value = joinUrl;
      const leader = v.leaderId ? (v.leaderId === v.selfId ? 'this tab' : short(v.leaderId)) : 'none yet';
      const role = v.role === 'rank' ? `rank ${v.dp?.rank} of ${v.dp?.world} (data parallel: it plays and trains its share of each batch)`
        : v.dp ? `${v.role === 'leader' ? 'rank 0' : 'a tab'} waiting for the data-parallel run's ${v.dp.world} tabs` : v.role === 'leader' ? 'the leader (it trains)' : 'a rollout actor';
      status.textContent = `Run ${v.runId}: ${v.state}; this tab ${short(v.selfId)} is ${role}; ${v.dp ? 'rank 0' : 'leader'} ${leader}; step ${v.step}${v.steps ? ` of ${v.steps}` : ''}` +
        (v.scheduler ? `; chunks ${v.scheduler.chunksDone} done, ${v.scheduler.reassigned} re-assigned (${v.scheduler.frozenReassigned} from frozen tabs), ${v.scheduler.staleResults} stale results rejected, ${v.scheduler.lateOrDuplicateResults} late or duplicate answers ignored, ${v.scheduler.rejectedResults} rejected` : '');
      const self = { id: v.selfId, ...v.self, lastSeen: 0, theirClock: null, joinedAt: 0 };
      rows.replaceChildren(...[self, ...v.members].map((m) => h('tr', { attrs: { 'data-member': m.id } },
        h('td', { text: m.id === v.selfId ? `${short(m.id)} (this tab)` : short(m.id) }),
        h('td', { text: m.role }),
        h('td', { text: m.version < 0 ? '—' : `v${m.version}` }),
        h('td', { text: m.rolloutsPerSec.toFixed(2) }),
        h('td', { text: String(v.trajectoriesBy[m.id] ?? (m.id === v.selfId ? (v.trajectoriesBy.local ?? 0) : 0)) }),
        h('td', { text: tabState(m) }),
        h('td', { text: m.busy ? 'busy' : 'idle' }))));
      notes.replaceChildren(...v.notes.slice(-12).map((n) => h('li', { text: n })));
      if (v.error) this.showError(v.error);
    },
    showError(message) {
      error.hidden = message === null;
      error.textContent = message ?? '';
    },
    onStart(f) {
      start.addEventListener('click', () => f({ relay: relay.value.trim(), ...(mode.value === 'dp' ? { world: Number(world.value) } : {}) }));
    },
    onLeave(f) {
      leave.addEventListener('click', f);
    },
  };
}
