// A tiny element builder: h('div', { class: 'x', text: 'hi' }, child…). No framework on purpose.

type Child = Node | string | null | undefined | false;

export interface Props {
  class?: string;
  text?: string;
  /** data-testid, the hook the e2e tests use. */
  testid?: string;
  attrs?: Record<string, string>;
  on?: Partial<{ [K in keyof HTMLElementEventMap]: (e: HTMLElementEventMap[K]) => void }>;
}

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (props.class) el.className = props.class;
  if (props.text !== undefined) el.textContent = props.text;
  if (props.testid) el.dataset.testid = props.testid;
  for (const [k, v] of Object.entries(props.attrs ?? {})) el.setAttribute(k, v);
  for (const [type, fn] of Object.entries(props.on ?? {})) el.addEventListener(type, fn as EventListener);
  for (const c of children) if (c !== null && c !== undefined && c !== false) el.append(c);
  return el;
}

/** A titled panel section. */
export function panel(title: string, testid: string, ...children: Child[]): HTMLElement {
  return h('section', { class: 'panel', testid }, h('h2', { text: title }), ...children);
}
