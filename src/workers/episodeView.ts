// Trajectories (GRPO samples, evaluation episodes) and expert episodes → EpisodeView, the small
// JSON form the page's trajectory browser shows: messages, per-turn sampled tokens and whether the
// turn was cut at the token limit, the running reward after each turn, components, advantage.
import type { Episode } from '../eval/rollout';
import type { Trajectory } from '../train/rl/trajectory';
import type { EpisodeView, MessageView, TurnView } from './runEvents';

export interface EpisodeContext {
  source: EpisodeView['source'];
  stage: number;
  step: number;
  label: string;
  taskSet: string;
}

const messageViews = (ms: readonly { role: MessageView['role']; content: string; name?: string }[]): MessageView[] =>
  ms.map((m) => (m.name === undefined ? { role: m.role, content: m.content } : { role: m.role, content: m.content, name: m.name }));

/**
 * Per assistant turn: its sampled tokens (turnIndex), and whether it was cut — its last sampled
 * token is not <|im_end|> (`imEndId`), i.e. the generation stopped at its token budget.
 */
export function turnViews(t: Pick<Trajectory, 'ids' | 'turnIndex' | 'turns' | 'turnTotals'>, imEndId: number): TurnView[] {
  const tokens = new Array<number>(t.turns).fill(0);
  const last = new Array<number>(t.turns).fill(-1);
  t.turnIndex.forEach((turn, i) => {
    if (turn < 0 || turn >= t.turns) return;
    tokens[turn]++;
    last[turn] = t.ids[i];
  });
  return tokens.map((n, k) => ({ tokens: n, hitTokenLimit: n > 0 && last[k] !== imEndId, totalAfter: t.turnTotals[k] ?? null }));
}

export function trajectoryView(t: Trajectory, ctx: EpisodeContext, imEndId: number, extra: { advantage?: number; groupKept?: boolean } = {}): EpisodeView {
  const view: EpisodeView = {
    ...ctx, taskId: t.taskId, category: t.category, group: t.group, sample: t.sample,
    messages: messageViews(t.messages), turns: turnViews(t, imEndId),
    reward: { total: t.reward.total, components: { ...t.reward.components } },
    success: t.success, truncated: t.truncated, end: t.end, tokens: t.ids.length,
  };
  if (extra.advantage !== undefined) view.advantage = extra.advantage;
  if (extra.groupKept !== undefined) view.groupKept = extra.groupKept;
  if (t.error) view.error = t.error;
  return view;
}

/** An expert's episode (text-level, no tokens) for the same browser. */
export function expertView(e: Episode, ctx: EpisodeContext, group: number): EpisodeView {
  const view: EpisodeView = {
    ...ctx, taskId: e.taskId, category: e.category, group, sample: 0,
    messages: messageViews(e.messages), turns: Array.from({ length: e.turns }, () => ({ tokens: 0, hitTokenLimit: false, totalAfter: null })),
    reward: { total: e.reward.total, components: { ...e.reward.components } },
    success: e.success, truncated: false, end: e.end, tokens: 0,
  };
  if (e.error) view.error = e.error;
  return view;
}
