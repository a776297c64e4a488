// The page lifecycle a tab announces to its swarm: 'hidden' when the tab is in the background (Chrome
// throttles its timers: at most once a second, after 5 minutes once a minute for chained timers),
// 'frozen' when Chrome is about to freeze it (the `freeze` event is the last thing a tab runs before
// its task queues stop; `resume` is the first after). Each change calls `onChange` synchronously,
// so the heartbeat that says "frozen" is posted before the tab stops.
import type { Lifecycle } from './protocol';

export interface PageLifecycle {
  now(): Lifecycle;
  stop(): void;
}

export function watchPageLifecycle(doc: Document, onChange: (now: Lifecycle, before: Lifecycle) => void): PageLifecycle {
  const fromVisibility = (): Lifecycle => (doc.visibilityState === 'visible' ? 'active' : 'hidden');
  let state: Lifecycle = fromVisibility();
  const set = (next: Lifecycle) => {
    if (next === state) return;
    const before = state;
    state = next;
    onChange(next, before);
  };
  const onVisibility = () => {
    if (state !== 'frozen') set(fromVisibility()); // a frozen tab becomes visible through `resume`
  };
  const onFreeze = () => set('frozen');
  const onResume = () => set(fromVisibility());
  doc.addEventListener('visibilitychange', onVisibility);
  doc.addEventListener('freeze', onFreeze);
  doc.addEventListener('resume', onResume);
  return {
    now: () => state,
    stop() {
      doc.removeEventListener('visibilitychange', onVisibility);
      doc.removeEventListener('freeze', onFreeze);
      doc.removeEventListener('resume', onResume);
    },
  };
}
