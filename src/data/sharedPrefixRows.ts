// GRPO rows where a group's samples share their prompt: the G episodes of a task start with the same
// rendered prompt (~200 of ~260 tokens for the routing set), so instead of G full copies a row holds
//   [prompt tokens 0 … S−1 | sample 1 tokens S … L₁−1 | sample 2 tokens S … L₂−1 | …]
// with the prompt as a plain segment and each sample as a branch segment of it
// (src/data/segments.ts): a sample's tokens see the prompt and themselves, never the other samples,
// and keep their own RoPE positions S, S+1, … The forward is therefore the same as G separate rows,
// and the backward sums the G samples' gradients into the prompt's keys and values — exactly what G
// separate rows would accumulate — for S + Σ(Lⱼ − S) tokens instead of Σ Lⱼ.
//
// S is one less than the shorter of the group's common prefix and its first policy token, so every
// shared position scores a target that all samples agree on and that no loss reads (the last prompt
// token is repeated at the head of each branch and scores the branch's first response token).
// A group too long for one row is split into several blocks, each with its own copy of the prompt.
import { type EncodedDoc, type PackedRow, paddingRow } from './packing';
import { branchSegment, MAX_BRANCHES } from './segments';

/** Where one document went: its token i (i ≥ shared) sits at position start + i of the row. */
export interface SharedPlacement {
  row: number;
  start: number;
  /** The document's length. */
  length: number;
  /** Leading tokens held once in the block's shared prefix (0: the document is placed whole). */
  shared: number;
}

export interface SharedPrefixOptions {
  /** Row length T; every document must fit. */
  seqLen: number;
  padId: number;
  /** First-fit several blocks per row (default true); false: one block per row. */
  pack?: boolean;
}

/** Tokens a group can hold once: min(common prefix, first scored target) − 1, or 0 when nothing is gained. */
export function sharedPrefixLength(docs: readonly EncodedDoc[]): number {
  if (docs.length < 2) return 0;
  let common = Math.min(...docs.map((d) => d.ids.length));
  for (const d of docs) {
    let i = 0;
    while (i < common && d.ids[i] === docs[0].ids[i]) i++;
    common = i;
  }
  const firstScored = Math.min(...docs.map((d) => { const i = d.mask.findIndex((m, j) => j > 0 && m !== 0); return i < 0 ? d.ids.length : i; }));
  return Math.max(0, Math.min(common, firstScored) - 1);
}

interface Block {
  /** Shared prompt length (0: a single plain document). */
  shared: number;
  /** Document indices (≥ 1; exactly 1 when shared = 0). */
  members: number[];
  length: number;
}

/** Packs `docs` (consecutive runs with the same group id share their prompt) into rows. */
export function packSharedPrefixRows(docs: readonly EncodedDoc[], groupOf: readonly number[], opts: SharedPrefixOptions): { rows: PackedRow[]; placements: SharedPlacement[] } {
  const T = opts.seqLen;
  if (groupOf.length !== docs.length) throw new Error(`shared-prefix rows: ${groupOf.length} group ids for ${docs.length} documents`);
  docs.forEach((d, i) => {
    if (d.ids.length > T) throw new Error(`shared-prefix rows: document ${i} has ${d.ids.length} tokens, more than the row length ${T}: raise seqLen to the rollout's maxTotalTokens`);
  });
  const blocks: Block[] = [];
  for (let start = 0; start < docs.length;) {
    let end = start + 1;
    while (end < docs.length && groupOf[end] === groupOf[start]) end++;
    const members = Array.from({ length: end - start }, (_, i) => start + i);
    const S = sharedPrefixLength(members.map((i) => docs[i]));
    if (S === 0) {
      for (const m of members) blocks.push({ shared: 0, members: [m], length: docs[m].ids.length });
    } else {
      let block: Block | null = null;
      for (const m of members) {
        const own = docs[m].ids.length - S;
        if (!block || block.length + own > T || block.members.length === MAX_BRANCHES) blocks.push((block = { shared: S, members: [], length: S }));
        block.members.push(m);
        block.length += own;
      }
    }
    start = end;
  }

  const rows: (PackedRow & { used: number; ids: number })[] = [];
  const placements: SharedPlacement[] = new Array(docs.length);
  for (const block of blocks) {
    let row = opts.pack === false ? undefined : rows.find((r) => T - r.used >= block.length);
    if (!row) rows.push((row = { ...paddingRow(T, opts.padId), used: 0, ids: 0 }));
    const r = rows.indexOf(row);
    const id = row.ids++; // plain segment id of the prefix (or of the whole document)
    const S = block.shared;
    if (S > 0) writeTokens(row, docs[block.members[0]], 0, S, row.used, id);
    let at = row.used + S;
    block.members.forEach((m, j) => {
      const L = docs[m].ids.length;
      writeTokens(row!, docs[m], S, L, at, S > 0 ? branchSegment(id, j) : id);
      placements[m] = { row: r, start: at - S, length: L, shared: S };
      at += L - S;
    });
    row.used = at;
  }
  return { rows: rows.map(({ used: _u, ids: _i, ...rest }) => rest), placements };
}

/** Tokens [from, to) of doc at row positions at, at+1, …, each scoring the document's next token (the last token scores nothing). */
function writeTokens(row: PackedRow, doc: EncodedDoc, from: number, to: number, at: number, segment: number): void {
  for (let i = from; i < to; i++) {
    const p = at + i - from;
    row.inputIds[p] = doc.ids[i];
    row.positions[p] = i;
    row.segments[p] = segment;
    if (i + 1 < doc.ids.length) {
      row.targets[p] = doc.ids[i + 1];
      row.mask[p] = doc.mask[i + 1];
    }
  }
}
