// Sample-conversation viewer: the trained model's answer to a test request, and the expert
// reference for the same task. Messages by role; <tool_call> blocks highlighted and marked
// valid (parsed call shown) or malformed; chat-format tokens as small badges.
import { type Segment, type ViewMessage, contentSegments } from '../sampleMessages';
import { h, panel } from './dom';

/** Where a conversation goes: the model's answer first, the expert reference under it. */
export type SampleSlot = 'model' | 'reference';
const SLOTS: SampleSlot[] = ['model', 'reference'];

export interface SampleViewer {
  el: HTMLElement;
  reset(): void;
  /** Shows a conversation in its slot (replacing what was there). */
  show(slot: SampleSlot, heading: string, messages: ViewMessage[]): void;
}

function segmentEl(s: Segment): HTMLElement {
  if (s.kind === 'text') return h('span', { class: 'seg-text', text: s.text });
  if (s.kind === 'special') return h('span', { class: 'seg-special', text: s.text });
  const verdict = s.call
    ? h('span', { class: 'call-ok', text: `✓ ${s.call.name}(${JSON.stringify(s.call.arguments)})` })
    : h('span', { class: 'call-bad', text: `✗ malformed call: ${s.problem}` });
  return h('span', { class: `seg-tool-call ${s.call ? 'valid' : 'invalid'}`, testid: 'tool-call' }, h('code', { text: s.text }), verdict);
}

export function messageEl(m: ViewMessage): HTMLElement {
  const who = m.role === 'tool' && m.name ? `tool · ${m.name}` : m.role;
  return h('div', { class: `msg msg-${m.role}`, attrs: { 'data-role': m.role } },
    h('div', { class: 'role', text: who }),
    h('div', { class: 'content' }, ...contentSegments(m.content).map(segmentEl)));
}

export function createSampleViewer(): SampleViewer {
  // Fixed slots: events and the reference arrive in any order, the page shows them in this one.
  const slots = new Map(SLOTS.map((slot) => [slot, h('div', { class: 'conversation', testid: `sample-${slot}` })]));
  const empty = h('p', { class: 'muted', text: 'After the run, the trained model answers a test request here.' });
  const el = panel('Sample conversation', 'sample-panel', empty, ...slots.values());
  const viewer: SampleViewer = {
    el,
    reset() {
      for (const s of slots.values()) {
        s.replaceChildren();
        s.hidden = true;
      }
      empty.hidden = false;
    },
    show(slot, heading, messages) {
      empty.hidden = true;
      const box = slots.get(slot)!;
      box.replaceChildren(h('h3', { text: heading }), ...messages.map(messageEl));
      box.hidden = false;
    },
  };
  viewer.reset();
  return viewer;
}
