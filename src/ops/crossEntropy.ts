// Token log-probabilities, masked cross-entropy and entropy over the vocabulary
// (shaders/crossEntropy.wgsl). GRPO uses logprob forward/backward directly with per-token
// weights (plus the entropy bonus's gradient, fused into the same backward pass); SFT's
// cross-entropy is the same backward with dlogp = −mask / Σ mask.
import code from '../../shaders/crossEntropy.wgsl?raw';
import type { GpuRuntime } from '../gpu/runtime';
import { packParams } from '../gpu/runtime';
import type { Tensor } from '../gpu/tensor';
import { grid1d, gridRows } from './grid';

export interface LogprobSpec {
  /** Rows (scored tokens). */
  N: number;
  /** Vocabulary size. */
  V: number;
  /**
   * Softmax temperature T > 0 (default 1): every result is that of softmax(logits / T) — the policy
   * GRPO rollouts sample at T — and the backward returns the gradient w.r.t. the untempered logits.
   */
  temperature?: number;
}

function check(spec: LogprobSpec, logits: Tensor, targets: Tensor, what: string): void {
  checkTemperature(spec, what);
  if (logits.size !== spec.N * spec.V) throw new Error(`${what}: logits '${logits.label}' has ${logits.size} elements, needs N·V = ${spec.N}·${spec.V}`);
  if (targets.dtype !== 'i32' || targets.size !== spec.N) throw new Error(`${what}: targets must be i32 with N = ${spec.N} elements, got ${targets.dtype} ${targets.size}`);
}

/** Vocabularies at most this large use one invocation per row; larger ones a workgroup per row. */
export const ROW_KERNEL_MAX_V = 2048;

function checkTemperature(spec: LogprobSpec, what: string): void {
  const t = spec.temperature ?? 1;
  if (!(t > 0 && Number.isFinite(t))) throw new Error(`${what}: temperature = ${t}; needs a finite value > 0 (1 = the untempered softmax)`);
}

const params = (s: LogprobSpec) => packParams([['u32', s.N], ['u32', s.V], ['f32', 1 / (s.temperature ?? 1)]]);

/** logp (N) = log softmax(logits / T)[target] and lse (N), the row log-sum-exp of logits / T saved for backward. */
export function logprobForward(rt: GpuRuntime, logits: Tensor, targets: Tensor, spec: LogprobSpec, outs?: { logp?: Tensor; lse?: Tensor }): { logp: Tensor; lse: Tensor } {
  check(spec, logits, targets, 'logprobForward');
  const logp = outs?.logp ?? rt.empty([spec.N], 'f32', 'logprob.logp');
  const lse = outs?.lse ?? rt.empty([spec.N], 'f32', 'logprob.lse');
  const perRow = spec.V <= ROW_KERNEL_MAX_V;
  rt.dispatch({
    op: 'logprob_forward', code, entryPoint: perRow ? 'forward_logprob_row' : 'forward_logprob', params: params(spec),
    bindings: { 1: logits, 2: targets, 3: logp, 4: lse }, workgroups: perRow ? grid1d(spec.N, 64) : gridRows(spec.N),
  });
  return { logp, lse };
}

/**
 * dlogits (N, V) = dlogp[n] · (onehot(t_n) − softmax(logits[n])) (times 1/T, with softmax(logits[n] / T), at temperature T).
 * `dlogp` is (N), or (N, 3) rows (dlogp, dH, H) to add an entropy bonus's gradient in the same pass:
 * dlogits[n, j] += dH[n] · ∂H_n/∂z_j = −dH[n] · p_j · (log p_j + H_n), H from entropyForward on the
 * same logits (GRPO: dH = −entropyCoef · w_n, grpo/entropy.ts). Fusing it keeps the in-place variant
 * valid: each logit is read once, then overwritten.
 * `inPlace: true` overwrites `logits` with the gradient and returns it (saves an (N, V) buffer).
 */
export function logprobBackward(
  rt: GpuRuntime, dlogp: Tensor, logits: Tensor, targets: Tensor, lse: Tensor, spec: LogprobSpec,
  opts?: { dlogits?: Tensor; inPlace?: boolean },
): Tensor {
  check(spec, logits, targets, 'logprobBackward');
  const rows = dlogp.shape.length === 2 && dlogp.shape[0] === spec.N && dlogp.shape[1] === 3;
  if (!(rows || dlogp.size === spec.N)) throw new Error(`logprobBackward: dlogp '${dlogp.label}' has shape [${dlogp.shape.join(', ')}], needs [${spec.N}] or [${spec.N}, 3] (dlogp, dH, H rows)`);
  if (lse.size !== spec.N) throw new Error(`logprobBackward: lse needs N = ${spec.N} elements`);
  const groups = grid1d(spec.N * spec.V, 256);
  const dlogpBinding: Record<number, Tensor> = rows ? { 10: dlogp } : { 5: dlogp };
  const variant = rows ? 'logprob_entropy' : 'logprob';
  if (opts?.inPlace) {
    rt.dispatch({ op: `${variant}_backward_inplace`, code, entryPoint: `backward_${variant}_inplace`, params: params(spec), bindings: { 2: targets, ...dlogpBinding, 6: lse, 8: logits }, workgroups: groups });
    return logits;
  }
  const dlogits = opts?.dlogits ?? rt.empty(logits.shape, 'f32', 'logprob.dlogits');
  rt.dispatch({ op: `${variant}_backward`, code, entryPoint: `backward_${variant}`, params: params(spec), bindings: { 1: logits, 2: targets, ...dlogpBinding, 6: lse, 7: dlogits }, workgroups: groups });
  return dlogits;
}

/** entropy (N) of softmax(logits / T) per row, from the lse that logprobForward saved (same spec). */
export function entropyForward(rt: GpuRuntime, logits: Tensor, lse: Tensor, spec: LogprobSpec, out?: Tensor): Tensor {
  if (logits.size !== spec.N * spec.V) throw new Error(`entropyForward: logits has ${logits.size} elements, needs N·V`);
  checkTemperature(spec, 'entropyForward');
  const ent = out ?? rt.empty([spec.N], 'f32', 'entropy');
  const perRow = spec.V <= ROW_KERNEL_MAX_V;
  rt.dispatch({
    op: 'entropy_forward', code, entryPoint: perRow ? 'forward_entropy_row' : 'forward_entropy', params: params(spec),
    bindings: { 1: logits, 6: lse, 9: ent }, workgroups: perRow ? grid1d(spec.N, 64) : gridRows(spec.N),
  });
  return ent;
}

/**
 * Per-token weights for masked mean cross-entropy: dlogp[n] = −mask[n] · dloss / max(Σ mask, 1).
 * Computed on the host (the mask comes from the tokenizer there). Loss = Σ mask·(−logp) / max(Σ mask, 1).
 */
export function crossEntropyWeights(mask: ArrayLike<number>, dloss = 1): Float32Array {
  let s = 0;
  for (let i = 0; i < mask.length; i++) s += mask[i];
  const denom = Math.max(s, 1);
  const w = new Float32Array(mask.length);
  for (let i = 0; i < mask.length; i++) w[i] = (-mask[i] * dloss) / denom;
  return w;
}

/** The masked mean loss from per-token log-probs read back from the GPU. */
export function maskedMeanNll(logp: ArrayLike<number>, mask: ArrayLike<number>): number {
  let num = 0;
  let den = 0;
  for (let i = 0; i < logp.length; i++) {
    if (mask[i] === 0) continue;
    num -= mask[i] * logp[i];
    den += mask[i];
  }
  return num / Math.max(den, 1);
}
