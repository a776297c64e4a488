// Counts and diversity of a synthetic SFT set: how many trajectories were generated and kept, and
// how varied the kept ones are (tools, turn counts, categories, request and reply wording).
import type { ChatConversation } from './chatJsonl';

/** Statistics of one family's synthetic data. */
export interface SynthStats {
  /** Family name. */
  family: string;
  /** Expert episodes run. */
  generated: number;
  /** Episodes kept by the rejection filter. */
  accepted: number;
  /** accepted / generated (0 when nothing was generated). */
  acceptanceRate: number;
  /** Rejected episodes by reason ('not-success', 'below-full-reward', or an abnormal end such as 'policy-error'). */
  rejectedBy: Record<string, number>;
  /** Names of the tools the kept trajectories called, sorted. */
  toolsUsed: string[];
  /** Kept trajectories by number of assistant turns. */
  turnHistogram: Record<number, number>;
  /** Kept trajectories by task category. */
  categories: Record<string, number>;
  /** Distinct first user messages, verbatim. */
  distinctFirstUserMessages: number;
  /** Distinct first user messages after masking (maskSpecifics): an estimate of request templates. */
  distinctFirstUserTemplates: number;
  /** Distinct first sentences of assistant prose (tool calls removed) after masking: the expert's wording variety. */
  distinctAssistantOpeners: number;
  /** Wall-clock milliseconds spent generating and verifying. */
  elapsedMs: number;
}

/** One kept trajectory as the stats see it. */
export interface StatsItem {
  /** The task's category. */
  category: string;
  /** Assistant turns of the episode. */
  turns: number;
  /** The exported conversation. */
  conversation: ChatConversation;
}

/**
 * Masks the specifics of a text so that fills of the same template compare equal: quoted strings,
 * e-mail addresses, numbers and words containing digits (ids), and capitalised words after the first of a sentence (names,
 * places, products). A heuristic: it over-counts templates whose fills are lower-case words.
 */
export function maskSpecifics(text: string): string {
  return text
    .replace(/"[^"]*"|'[^'\s][^']*'/g, '"…"')
    .replace(/[\w.+-]+@[\w-]+(\.[\w-]+)+/g, '@')
    .replace(/(?<=[\w,;:] )[A-Z][\w-]*/g, 'X')
    .replace(/[#$+]?[A-Za-z_-]*\d(?:[\w:/-]|[.,]\d)*/g, '#')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Text up to the first sentence end or line break (what varies when an expert picks a phrasing). */
function firstSentence(text: string): string {
  const end = text.search(/[.!?:](\s|$)|\n/);
  return (end === -1 ? text : text.slice(0, end + 1)).trim();
}

/** Stats built one kept trajectory at a time, so a long run need not hold its conversations. */
export class SynthStatsAccumulator {
  private readonly tools = new Set<string>();
  private readonly firstUser = new Set<string>();
  private readonly firstUserTemplates = new Set<string>();
  private readonly assistantProse = new Set<string>();
  private readonly turns: Record<number, number> = {};
  private readonly categories: Record<string, number> = {};
  private accepted = 0;

  add({ conversation, turns, category }: StatsItem): void {
    this.accepted++;
    this.turns[turns] = (this.turns[turns] ?? 0) + 1;
    this.categories[category] = (this.categories[category] ?? 0) + 1;
    const user = conversation.messages.find((m) => m.role === 'user');
    if (user !== undefined && !this.firstUser.has(user.content)) {
      this.firstUser.add(user.content);
      this.firstUserTemplates.add(maskSpecifics(user.content));
    }
    for (const m of conversation.messages) {
      if (m.role !== 'assistant') continue;
      for (const call of m.tool_calls ?? []) this.tools.add(call.function.name);
      const opener = firstSentence(maskSpecifics(m.content));
      if (opener !== '') this.assistantProse.add(opener);
    }
  }

  /** The stats of everything added, out of `generated` episodes. */
  finish(family: string, generated: number, rejectedBy: Record<string, number>, elapsedMs: number): SynthStats {
    return {
      family,
      generated,
      accepted: this.accepted,
      acceptanceRate: generated === 0 ? 0 : this.accepted / generated,
      rejectedBy: { ...rejectedBy },
      toolsUsed: [...this.tools].sort(),
      turnHistogram: { ...this.turns },
      categories: { ...this.categories },
      distinctFirstUserMessages: this.firstUser.size,
      distinctFirstUserTemplates: this.firstUserTemplates.size,
      distinctAssistantOpeners: this.assistantProse.size,
      elapsedMs,
    };
  }
}

/** Stats of `items` (the kept trajectories) out of `generated` episodes. */
export function computeSynthStats(family: string, generated: number, items: readonly StatsItem[], rejectedBy: Record<string, number>, elapsedMs: number): SynthStats {
  const acc = new SynthStatsAccumulator();
  for (const item of items) acc.add(item);
  return acc.finish(family, generated, rejectedBy, elapsedMs);
}

/** Stats as readable lines for the console. */
export function formatSynthStats(stats: readonly SynthStats[]): string {
  const lines: string[] = [];
  for (const s of stats) {
    const turns = Object.entries(s.turnHistogram)
      .sort(([a], [b]) => Number(a) - Number(b))
      .map(([t, c]) => `${t}:${c}`)
      .join(' ');
    const categories = Object.entries(s.categories)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([c, n]) => `${c} ${n}`)
      .join(', ');
    const rejected = Object.entries(s.rejectedBy).map(([why, n]) => `${why} ${n}`).join(', ');
    lines.push(
      `${s.family}: generated ${s.generated}, accepted ${s.accepted} (${(100 * s.acceptanceRate).toFixed(1)}%)${rejected ? `, rejected: ${rejected}` : ''}, ${(s.elapsedMs / 1000).toFixed(1)} s`,
      `  distinct tools used: ${s.toolsUsed.length} (${s.toolsUsed.join(', ')})`,
      `  turn histogram (assistant turns: conversations): ${turns}`,
      `  categories (${Object.keys(s.categories).length}): ${categories}`,
      `  first user messages: ${s.distinctFirstUserMessages} distinct, ~${s.distinctFirstUserTemplates} templates after masking; distinct assistant openers (first sentence, masked): ~${s.distinctAssistantOpeners}`,
    );
  }
  return lines.join('\n');
}
