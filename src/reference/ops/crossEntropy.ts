// Fused log-softmax + gather (token log-probs for SFT and GRPO), masked cross-entropy, and entropy.
// Every row subtracts its max before exp, so logits of 1e4 are as stable as logits of 1.

function checkLogits(name: string, logits: Float64Array, N: number, V: number): void {
  if (logits.length !== N * V) throw new Error(`${name}: logits has ${logits.length} values, needs N·V = ${N * V}`);
}

function checkTarget(name: string, t: number, V: number, n: number): void {
  if (!(t >= 0 && t < V)) throw new Error(`${name}: targets[${n}] = ${t} is outside the vocabulary [0, ${V})`);
}

/** Natural log-sum-exp of row n. */
function rowLse(logits: Float64Array, n: number, V: number): number {
  let max = -Infinity;
  for (let j = 0; j < V; j++) max = Math.max(max, logits[n * V + j]);
  let sum = 0;
  for (let j = 0; j < V; j++) sum += Math.exp(logits[n * V + j] - max);
  return max + Math.log(sum);
}

export function logprobForward(
  logits: Float64Array, // (N, V)
  targets: Int32Array, // (N)
  N: number,
  V: number,
): { logp: Float64Array; lse: Float64Array } {
  checkLogits('logprobForward', logits, N, V);
  if (targets.length !== N) throw new Error(`logprobForward: targets has ${targets.length} values, needs N = ${N}`);
  const logp = new Float64Array(N); // (N)
  const lse = new Float64Array(N); // (N)
  for (let n = 0; n < N; n++) {
    checkTarget('logprobForward', targets[n], V, n);
    lse[n] = rowLse(logits, n, V);
    logp[n] = logits[n * V + targets[n]] - lse[n];
  }
  return { logp, lse };
}

export function logprobBackward(
  dlogp: Float64Array, // (N)
  logits: Float64Array, // (N, V)
  targets: Int32Array, // (N)
  lse: Float64Array, // (N)
  N: number,
  V: number,
): Float64Array {
  checkLogits('logprobBackward', logits, N, V);
  const dlogits = new Float64Array(N * V); // (N, V)
  for (let n = 0; n < N; n++) {
    checkTarget('logprobBackward', targets[n], V, n);
    // forward: logp = logits[t] − lse  ⇒  dlogits[j] = dlogp · (onehot(t)[j] − softmax[j])
    const g = dlogp[n];
    for (let j = 0; j < V; j++) dlogits[n * V + j] = -g * Math.exp(logits[n * V + j] - lse[n]);
    dlogits[n * V + targets[n]] += g;
  }
  return dlogits;
}

/** Σ mask (the normaliser), floored at 1 so an all-masked batch gives loss 0, not NaN. */
function maskDenominator(mask: Float64Array, N: number): number {
  if (mask.length !== N) throw new Error(`crossEntropy: mask has ${mask.length} values, needs N = ${N}`);
  let s = 0;
  for (let n = 0; n < N; n++) s += mask[n];
  return Math.max(s, 1);
}

export function crossEntropyForward(
  logits: Float64Array, // (N, V)
  targets: Int32Array, // (N)
  mask: Float64Array, // (N) 0/1 or weights
  N: number,
  V: number,
): { loss: number; losses: Float64Array; lse: Float64Array } {
  const denom = maskDenominator(mask, N);
  const { logp, lse } = logprobForward(logits, targets, N, V);
  const losses = new Float64Array(N); // (N) −logp where mask ≠ 0, else 0
  let total = 0;
  for (let n = 0; n < N; n++) {
    if (mask[n] === 0) continue;
    losses[n] = -logp[n];
    total += mask[n] * losses[n];
  }
  return { loss: total / denom, losses, lse };
}

export function crossEntropyBackward(
  logits: Float64Array, // (N, V)
  targets: Int32Array, // (N)
  mask: Float64Array, // (N)
  lse: Float64Array, // (N)
  N: number,
  V: number,
  dloss = 1,
): Float64Array {
  const denom = maskDenominator(mask, N);
  // forward: loss = Σ_n mask[n] · (−logp[n]) / denom
  const dlogp = new Float64Array(N); // (N)
  for (let n = 0; n < N; n++) dlogp[n] = (-mask[n] * dloss) / denom;
  return logprobBackward(dlogp, logits, targets, lse, N, V);
}

/** Per-row entropy −Σ_j p_j log p_j of softmax(logits[n]) (RL metric; no backward). */
export function entropyForward(logits: Float64Array, N: number, V: number): Float64Array {
  checkLogits('entropyForward', logits, N, V);
  const ent = new Float64Array(N); // (N)
  for (let n = 0; n < N; n++) {
    const l = rowLse(logits, n, V);
    let h = 0;
    for (let j = 0; j < V; j++) {
      const logp = logits[n * V + j] - l;
      const p = Math.exp(logp);
      if (p > 0) h -= p * logp;
    }
    ent[n] = h;
  }
  return ent;
}
