// The split audit: counts how often held-out content (validation and test values, phrasings,
// prompts, tools, templates) occurs in a training stream (train tasks, SFT data). Used by
// splitDisjointness.test.ts, which prints the table and fails on any overlap, so a change that
// reintroduces a leak fails loudly; anyone can run it on other streams.

/**
 * How an item is looked for in a stream's texts:
 * - 'exact': a text equal to the item (prompts, argument values, ids, tool names);
 * - 'word': the item as a whole word or phrase inside a text (not inside a longer word);
 * - 'template': a phrasing with {placeholders}: its literal parts in order, any text in between.
 */
export type MatchKind = 'exact' | 'word' | 'template';

/** Held-out items of one kind (e.g. "route8 values, validation + test"). */
export interface HeldOutSet {
  name: string;
  items: readonly string[];
  match: MatchKind;
  /** 'template' only: a placeholder stands for at most this many words (default: any text), so it cannot span a joined second request. */
  maxWordsPerPlaceholder?: number;
}

/** One training stream: the texts to search (e.g. user messages of 3 000 train tasks). */
export interface TrainStream {
  name: string;
  texts: readonly string[];
}

/** One line of the audit: how many held-out items occur in the stream, and how often. */
export interface OverlapRow {
  stream: string;
  heldOut: string;
  /** Held-out items checked. */
  items: number;
  /** Texts searched. */
  texts: number;
  /** Items found at least once. */
  overlapping: number;
  /** Occurrences in total (an item found in 3 texts counts 3). */
  occurrences: number;
  /** Up to 5 overlapping items with a text they occur in, to show what leaked. */
  examples: string[];
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A regex source for one item; word matches do not start or end inside a longer word. */
function patternOf(item: string, match: Exclude<MatchKind, 'exact'>, maxWords?: number): string {
  if (match === 'word') return `(?<![\\w])${escapeRegex(item)}(?![\\w])`;
  return templatePattern(item, maxWords);
}

/** A regex source for a phrasing with {placeholders} as 'template' matching reads it (a placeholder: ≤ `maxWords` words, or any text). */
export function templatePattern(item: string, maxWords?: number): string {
  const literals = item.split(/\{[^}]*\}/).map((part) => escapeRegex(part));
  const placeholder = maxWords === undefined ? '[\\s\\S]*?' : `\\S*(?:\\s+\\S+){0,${maxWords - 1}}?`;
  return literals.join(placeholder);
}

/** Counts the held-out items of `set` in the texts of `stream`. */
export function countOverlap(set: HeldOutSet, stream: TrainStream): OverlapRow {
  const items = [...new Set(set.items.map((s) => s.trim()).filter((s) => s.length > 0))];
  const row: OverlapRow = { stream: stream.name, heldOut: set.name, items: items.length, texts: stream.texts.length, overlapping: 0, occurrences: 0, examples: [] };
  const note = (item: string, text: string, count: number) => {
    row.overlapping++;
    row.occurrences += count;
    if (row.examples.length < 5) row.examples.push(`${JSON.stringify(item)} in ${JSON.stringify(text.length > 120 ? `${text.slice(0, 117)}…` : text)}`);
  };
  if (set.match === 'exact') {
    const counts = new Map<string, number>();
    for (const t of stream.texts) counts.set(t, (counts.get(t) ?? 0) + 1);
    for (const item of items) {
      const c = counts.get(item) ?? 0;
      if (c > 0) note(item, item, c);
    }
    return row;
  }
  // single-word items against a token set (fast for thousands of ids); the rest by regex
  const tokens = set.match === 'word' ? tokenCounts(stream.texts) : null;
  for (const item of items) {
    if (tokens !== null && !/\s/.test(item) && tokens.has(item)) {
      const first = stream.texts.find((t) => t.includes(item)) ?? item;
      note(item, first, tokens.get(item) ?? 0);
      continue;
    }
    if (tokens !== null && !/\s/.test(item)) continue;
    const re = new RegExp(patternOf(item, set.match, set.maxWordsPerPlaceholder));
    let count = 0;
    let first = '';
    for (const t of stream.texts) {
      if (re.test(t)) {
        if (count === 0) first = t;
        count++;
      }
    }
    if (count > 0) note(item, first, count);
  }
  return row;
}

/**
 * Texts split into words as 'word' matching sees them: runs of characters other than white space
 * and quotes/brackets/commas, with sentence punctuation trimmed at the end ("#W8123456." → "#W8123456");
 * every sub-run between word characters' boundaries is counted too, so "/var/log" is found in "/var/log/x".
 */
function tokenCounts(texts: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const text of texts) {
    const seen = new Set<string>();
    for (const raw of text.split(/[\s"'`,;()[\]{}<>]+/)) {
      const token = raw.replace(/[.?!:]+$/, '');
      if (token === '') continue;
      // every prefix that ends at a word boundary (a non-word character follows): "a/b/c" → "a", "a/b", "a/b/c"
      for (let i = 1; i <= token.length; i++) {
        if (i < token.length && !(/\w/.test(token[i - 1]) && !/\w/.test(token[i]))) continue;
        seen.add(token.slice(0, i));
      }
    }
    for (const t of seen) counts.set(t, (counts.get(t) ?? 0) + 1);
  }
  return counts;
}

/** The audit table: one line per (stream, held-out set), overlaps last column. */
export function formatOverlapTable(rows: readonly OverlapRow[]): string {
  const head = ['train stream', 'held-out content', 'items', 'texts', 'overlapping', 'occurrences'];
  const cells = rows.map((r) => [r.stream, r.heldOut, String(r.items), String(r.texts), String(r.overlapping), String(r.occurrences)]);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: string[]) => c.map((x, i) => (i < 2 ? x.padEnd(widths[i]) : x.padStart(widths[i]))).join('  ');
  const examples = rows.filter((r) => r.examples.length > 0).map((r) => `  ${r.stream} × ${r.heldOut}: ${r.examples.join('; ')}`);
  return [line(head), ...cells.map(line), ...(examples.length > 0 ? ['leaks:', ...examples] : [])].join('\n');
}
