// A conversation as the agent lived it: the system prompt (folded: it holds the tool list), the
// user's request, each assistant turn with its tool calls highlighted and checked, tool results and
// the simulated user's replies; per turn the sampled tokens, the running reward and a "token limit"
// mark where the turn was cut. Long whitespace runs show as a marker, and long messages scroll
// inside a capped bubble, so a degenerate sample cannot take over the page.
import { collapseBlankRuns, contentSegments, type Segment } from '../sampleMessages';
import type { EpisodeView, MessageView, TurnView } from '../../workers/runEvents';
import { h } from './dom';

function textEl(text: string): HTMLElement {
  const parts = collapseBlankRuns(text).map((p) => (typeof p === 'string' ? p : h('span', {
    class: 'blank-run', text: p.newlines ? `↵ × ${p.newlines}` : `␣ × ${p.chars}`,
    attrs: { title: `${p.chars} whitespace characters (${p.newlines} line breaks) left out`, 'aria-label': `${p.newlines} empty lines` },
  })));
  return h('span', { class: 'seg-text' }, ...parts);
}

function segmentEl(s: Segment): HTMLElement {
  if (s.kind === 'text') return textEl(s.text);
  if (s.kind === 'special') return h('span', { class: 'seg-special', text: s.text });
  const verdict = s.call
    ? h('span', { class: 'call-ok', text: `✓ ${s.call.name}(${JSON.stringify(s.call.arguments)})` })
    : h('span', { class: 'call-bad', text: `✗ malformed call: ${s.problem}` });
  return h('span', { class: `seg-tool-call ${s.call ? 'valid' : 'invalid'}`, testid: 'tool-call' }, h('code', {}, textEl(s.text)), verdict);
}

function roleName(m: MessageView, userTurns: number): string {
  if (m.role === 'tool') return m.name ? `tool · ${m.name}` : 'tool';
  if (m.role === 'user' && userTurns > 1) return 'simulated user';
  return m.role;
}

export function messageEl(m: MessageView, userTurns = 1, turn?: TurnView, turnIndex?: number): HTMLElement {
  // only the model's turns are parsed for calls: a system prompt that explains <tool_call> is text
  const content = m.content === '' ? [h('span', { class: 'muted', text: '(empty)' })] : m.role === 'assistant' ? contentSegments(m.content).map(segmentEl) : [textEl(m.content)];
  const marks = turn ? h('div', { class: 'turn-marks' },
    h('span', { text: `turn ${(turnIndex ?? 0) + 1}` }),
    turn.tokens ? h('span', { text: `${turn.tokens} tokens` }) : null,
    turn.totalAfter !== null ? h('span', { text: `reward so far ${turn.totalAfter.toFixed(2)}` }) : null,
    turn.hitTokenLimit ? h('span', { class: 'limit', testid: 'token-limit', text: 'token limit hit: the turn was cut' }) : null) : null;
  return h('div', { class: `msg msg-${m.role}`, attrs: { 'data-role': m.role } },
    h('div', { class: 'role', text: roleName(m, userTurns) }),
    h('div', { class: 'body' }, h('div', { class: 'content' }, ...content), marks));
}

/** The whole transcript of an episode (system prompt folded). */
export function transcriptEl(e: Pick<EpisodeView, 'messages' | 'turns'>): HTMLElement {
  const users = e.messages.filter((m) => m.role === 'user').length;
  let turn = 0;
  const items = e.messages.map((m) => {
    if (m.role === 'system') {
      return h('details', { class: 'msg-system-fold', attrs: { 'data-role': 'system' } },
        h('summary', { text: `system prompt and tools (${m.content.length} characters)` }), messageEl(m));
    }
    if (m.role === 'assistant') {
      const k = turn++;
      return messageEl(m, users, e.turns[k], k);
    }
    return messageEl(m, users);
  });
  return h('div', { class: 'conversation', testid: 'transcript' }, ...items);
}

/** Final reward components as a small table. */
export function componentsEl(reward: EpisodeView['reward']): HTMLElement {
  return h('table', { class: 'components' },
    h('caption', { text: `reward ${reward.total.toFixed(3)}` }),
    h('tbody', {}, ...Object.entries(reward.components).map(([k, v]) => h('tr', {}, h('th', { text: k, attrs: { scope: 'row' } }), h('td', { text: v.toFixed(2) })))));
}
