// Tokens per episode per family × tokenizer × tool rendering (npm run context-stats, README
// "Context: tokens per episode"): how long a whole expert episode is as SFT trains on it and as a
// rollout's context grows to, counted with encodeConversation's turn-by-turn tokenisation.
import type { Episode } from '../eval/rollout';
import type { ToolRendering } from '../tokenizer/compactTools';
import type { Tokenizer } from '../tokenizer/types';
import { renderedChatSegments, renderedSegments } from './episodeCorpus';

/** Mean, 95th percentile (nearest rank) and maximum of a sample. */
export interface Summary {
  n: number;
  mean: number;
  p95: number;
  max: number;
}

export function summarize(values: readonly number[]): Summary {
  if (values.length === 0) return { n: 0, mean: NaN, p95: NaN, max: NaN };
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil(0.95 * sorted.length) - 1; // nearest-rank percentile
  return { n: sorted.length, mean: sorted.reduce((a, b) => a + b, 0) / sorted.length, p95: sorted[rank], max: sorted[sorted.length - 1] };
}

/** Tokens of a whole episode: the sum over the segments encodeConversation tokenises one by one. */
export function episodeTokens(tok: Tokenizer, episode: Pick<Episode, 'messages' | 'tools'>, rendering: ToolRendering): number {
  return renderedSegments(episode.messages, episode.tools, rendering).reduce((n, text) => n + tok.encode(text).length, 0);
}

/** Where an episode's tokens go: the opening (system prompt, tools, first user turn), what the assistant generates, the rest (tool results, user turns, turn markup). */
export interface TokenBudget {
  opening: number;
  assistant: number;
  environment: number;
}

export function episodeBudget(tok: Tokenizer, episode: Pick<Episode, 'messages' | 'tools'>, rendering: ToolRendering): TokenBudget {
  const budget: TokenBudget = { opening: 0, assistant: 0, environment: 0 };
  renderedChatSegments(episode.messages, episode.tools, rendering).forEach((s, i) => {
    budget[i === 0 ? 'opening' : s.assistant ? 'assistant' : 'environment'] += tok.encode(s.text).length;
  });
  return budget;
}

/** Mean budget over episodes, as a markdown table row: family | opening | assistant | environment. */
export function formatBudgetRow(family: string, tok: Tokenizer, episodes: readonly Episode[], rendering: ToolRendering): string {
  const sum: TokenBudget = { opening: 0, assistant: 0, environment: 0 };
  for (const e of episodes) {
    const b = episodeBudget(tok, e, rendering);
    for (const k of Object.keys(sum) as (keyof TokenBudget)[]) sum[k] += b[k];
  }
  const n = Math.max(1, episodes.length);
  return `| ${family} | ${round(sum.opening / n)} | ${round(sum.assistant / n)} | ${round(sum.environment / n)} |`;
}

export interface ContextRow {
  family: string;
  /** Task category, or undefined for the whole family. */
  category?: string;
  tokenizer: Tokenizer['kind'];
  rendering: ToolRendering;
  tokens: Summary;
  turns: Summary;
}

/** One row per (tokenizer, rendering) for these episodes. */
export function contextRows(family: string, episodes: readonly Episode[], tokenizers: readonly Tokenizer[], renderings: readonly ToolRendering[], category?: string): ContextRow[] {
  const turns = summarize(episodes.map((e) => e.turns));
  const rows: ContextRow[] = [];
  for (const tok of tokenizers) {
    for (const rendering of renderings) {
      rows.push({ family, category, tokenizer: tok.kind, rendering, tokens: summarize(episodes.map((e) => episodeTokens(tok, e, rendering))), turns });
    }
  }
  return rows;
}

const TOKENIZER_LABEL: Record<Tokenizer['kind'], string> = { byte: 'byte', 'qwen3-trimmed': 'trimmed Qwen3', qwen3: 'full Qwen3' };
const RENDERING_LABEL: Record<ToolRendering, string> = { compact: 'compact', json: 'full JSON' };

const round = (x: number) => (Number.isFinite(x) ? String(Math.round(x)) : '–');

/** A markdown table, one line per row: family (category), tokenizer, rendering, n, tokens and turns. */
export function formatContextTable(rows: readonly ContextRow[]): string {
  const lines = [
    '| family | tokenizer | tools | n | tokens mean | p95 | max | turns mean | p95 | max |',
    '|---|---|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    const family = r.category === undefined ? r.family : `${r.family} · ${r.category}`;
    const t = r.tokens;
    const u = r.turns;
    lines.push(`| ${family} | ${TOKENIZER_LABEL[r.tokenizer]} | ${RENDERING_LABEL[r.rendering]} | ${t.n} | ${round(t.mean)} | ${t.p95} | ${t.max} | ${u.mean.toFixed(1)} | ${u.p95} | ${u.max} |`);
  }
  return lines.join('\n');
}
