// Packs tokenised conversations into fixed-length training rows for next-token prediction.
// Each conversation is one document: position i is scored against the document's token i+1 with
// the weight of that target (1 on assistant tokens). Documents packed into one row get their own
// segment id (attention never crosses documents) and positions restarting at 0; the last position
// of a document and padding score nothing. Padding has segment −1.

/** One tokenised conversation. */
export interface EncodedDoc {
  /** Token ids of the whole rendered conversation. */
  ids: number[];
  /** 1 on assistant-produced tokens (the ones we train on), 0 elsewhere; same length as ids. */
  mask: number[];
}

/** A training row of length T (all arrays (T)). */
export interface PackedRow {
  inputIds: Int32Array;
  targets: Int32Array;
  /** Loss weight of each position's target. */
  mask: Float32Array;
  /** Document index within the row (attention segments); −1 = padding. */
  segments: Int32Array;
  /** RoPE positions, restarting at 0 for every document. */
  positions: Int32Array;
}

export interface PackOptions {
  /** Row length T (tokens per row). */
  seqLen: number;
  /** Token used for padding inputs and unscored targets (any valid id; it is never scored). */
  padId: number;
  /** 'error' (default): a conversation longer than seqLen is an error; 'truncate': cut it. */
  overLong?: 'error' | 'truncate';
  /** false: one conversation per row (padding only). Default true: first-fit packing. */
  pack?: boolean;
}

export function checkDoc(doc: EncodedDoc, index: number, opts: PackOptions): EncodedDoc {
  if (doc.ids.length !== doc.mask.length) {
    throw new Error(`conversation ${index}: ${doc.ids.length} tokens but ${doc.mask.length} mask values`);
  }
  if (doc.ids.length < 2 || !doc.mask.slice(1).some((m) => m !== 0)) {
    throw new Error(`conversation ${index} is empty or has no assistant tokens to learn from: check its messages include an assistant turn`);
  }
  if (doc.ids.length > opts.seqLen) {
    if ((opts.overLong ?? 'error') === 'error') {
      throw new Error(
        `conversation ${index} has ${doc.ids.length} tokens, more than the sequence length ${opts.seqLen}: ` +
          'raise seqLen, shorten the data, or pass overLong: "truncate"',
      );
    }
    return { ids: doc.ids.slice(0, opts.seqLen), mask: doc.mask.slice(0, opts.seqLen) };
  }
  return doc;
}

/** A row of padding only: pad inputs and targets, no loss, segment −1 (fill it, or pad a batch with it). */
export function paddingRow(T: number, padId: number): PackedRow {
  return {
    inputIds: new Int32Array(T).fill(padId),
    targets: new Int32Array(T).fill(padId),
    mask: new Float32Array(T),
    segments: new Int32Array(T).fill(-1),
    positions: new Int32Array(T),
  };
}

function emptyRow(T: number, padId: number): PackedRow & { used: number; docs: number } {
  return { ...paddingRow(T, padId), used: 0, docs: 0 };
}

/** Where a document landed: row index and first position; its token i sits at start + i. */
export interface Placement {
  row: number;
  start: number;
  /** Tokens placed (less than the document's length when truncated). */
  length: number;
}

/** Packs documents into rows (first fit, in order: deterministic). */
export function packDocuments(docs: EncodedDoc[], opts: PackOptions): PackedRow[] {
  return packDocumentsWithPlacement(docs, opts).rows;
}

/** packDocuments plus each document's placement (RL aligns per-token records with it). */
export function packDocumentsWithPlacement(docs: EncodedDoc[], opts: PackOptions): { rows: PackedRow[]; placements: Placement[] } {
  const T = opts.seqLen;
  const rows: ReturnType<typeof emptyRow>[] = [];
  const placements: Placement[] = [];
  docs.forEach((raw, index) => {
    const doc = checkDoc(raw, index, opts);
    const L = doc.ids.length;
    let row = opts.pack === false ? undefined : rows.find((r) => T - r.used >= L);
    if (!row) rows.push((row = emptyRow(T, opts.padId)));
    const start = row.used;
    placements.push({ row: rows.indexOf(row), start, length: L });
    for (let i = 0; i < L; i++) {
      const p = start + i;
      row.inputIds[p] = doc.ids[i];
      row.positions[p] = i;
      row.segments[p] = row.docs;
      if (i + 1 < L) {
        row.targets[p] = doc.ids[i + 1];
        row.mask[p] = doc.mask[i + 1];
      }
    }
    row.used += L;
    row.docs++;
  });
  return { rows: rows.map(({ used: _u, docs: _d, ...r }) => r), placements };
}

/** Concatenates B rows into one (B, T) batch. */
export function stackRows(rows: PackedRow[]): PackedRow {
  const T = rows[0]?.inputIds.length ?? 0;
  const cat = <A extends Int32Array | Float32Array>(make: (n: number) => A, pick: (r: PackedRow) => A): A => {
    const out = make(rows.length * T);
    rows.forEach((r, i) => out.set(pick(r), i * T));
    return out;
  };
  return {
    inputIds: cat((n) => new Int32Array(n), (r) => r.inputIds),
    targets: cat((n) => new Int32Array(n), (r) => r.targets),
    mask: cat((n) => new Float32Array(n), (r) => r.mask),
    segments: cat((n) => new Int32Array(n), (r) => r.segments),
    positions: cat((n) => new Int32Array(n), (r) => r.positions),
  };
}
