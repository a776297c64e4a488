// Token embedding lookup: out[n] = table[ids[n]].

function checkId(name: string, id: number, V: number, n: number): void {
  if (!(id >= 0 && id < V)) throw new Error(`${name}: ids[${n}] = ${id} is outside the vocabulary [0, ${V})`);
}

export function embeddingForward(
  ids: Int32Array, // (N)
  table: Float64Array, // (V, C)
  V: number,
  C: number,
): Float64Array {
  if (table.length !== V * C) throw new Error(`embeddingForward: table has ${table.length} values, needs V·C = ${V * C}`);
  const N = ids.length;
  const out = new Float64Array(N * C); // (N, C)
  for (let n = 0; n < N; n++) {
    const id = ids[n];
    checkId('embeddingForward', id, V, n);
    for (let c = 0; c < C; c++) out[n * C + c] = table[id * C + c];
  }
  return out;
}

export function embeddingBackward(
  dout: Float64Array, // (N, C)
  ids: Int32Array, // (N)
  V: number,
  C: number,
): Float64Array {
  const N = ids.length;
  if (dout.length !== N * C) throw new Error(`embeddingBackward: dout has ${dout.length} values, needs N·C = ${N * C}`);
  const dtable = new Float64Array(V * C); // (V, C)
  for (let n = 0; n < N; n++) {
    const id = ids[n];
    checkId('embeddingBackward', id, V, n);
    // forward: out[n, c] = table[id, c]  (repeated ids accumulate)
    for (let c = 0; c < C; c++) dtable[id * C + c] += dout[n * C + c];
  }
  return dtable;
}
