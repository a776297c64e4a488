// GRPO per-token loss and its gradient w.r.t. logp, one invocation per token: the GPU twin of
// grpoLoss (src/train/grpo/loss.ts, the float64 reference; formulas, clip-higher and the PyTorch
// subgradient convention are documented there). Per token n with weight w = w_n (0 = not a policy token):
//   r = exp(logp − base), base = proxLogp ?? oldLogp;  ρ = min(exp(proxLogp − oldLogp), tisCap) or 1
//   surr = min(r·A, clamp(r, 1 − epsLow, 1 + epsHigh)·A);  k3 = exp(d) − d − 1, d = refLogp − logp
//   term = w·(−ρ·surr + klCoef·k3 − entropyCoef·H)
//   dlogp = w·(−ρ·r·A·[not clipped] + klCoef·(1 − exp(d)))
// The kernel writes dlogp (N) — or rows (N, 3) = (dlogp, dH, H), dH = −entropyCoef·w, when the
// entropy bonus is on (the fused logprob/entropy backward in crossEntropy.wgsl reads them) — and
// per-token statistics (N, STATS) that the host sums into the named metrics.
// f32 care: exp(x) − 1 − x (k3, approx_kl) and exp(x) − 1 (KL gradient) use series near 0 (no
// cancellation at ratio ≈ 1); exponents are capped at 88 so exp never overflows f32: a ratio above
// e^88 ≈ 1.6e38 (a broken run) is exact when clipped away (A > 0) and flagged BAD_OUTPUT when A < 0,
// which skips the update; non-finite values are detected from their bits, not with x != x (WGSL
// lets compilers assume finite floats).

const WG: u32 = 256u;
const STATS: u32 = 8u;      // columns of stats, see below
const MAX_EXP: f32 = 88.0;  // exp(88) < f32 max

// flags (Params.flags): which optional inputs are bound for real (absent ones alias logp)
const HAS_PROX: u32 = 1u;
const HAS_REF: u32 = 2u;
const HAS_ENTROPY: u32 = 4u;
const WRITE_ROWS: u32 = 8u;  // dlogp output is (N, 3) rows (dlogp, dH, H)

// stats column 6 bits
const CLIP_HIGH: u32 = 1u;
const CLIP_LOW: u32 = 2u;
const TIS_CAPPED: u32 = 4u;
const BAD_INPUT: u32 = 8u;   // logp / proxLogp / refLogp / entropy / oldLogp / advantage not finite
const BAD_OUTPUT: u32 = 16u; // loss term or dlogp not finite (overflow)

struct Params {
  N: u32,
  flags: u32,
  epsLow: f32,
  epsHigh: f32,
  klCoef: f32,
  tisCap: f32,
  entropyCoef: f32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> logp: array<f32>;          // (N) current policy
@group(0) @binding(2) var<storage, read> tokens: array<f32>;        // (N, 3) host-packed (oldLogp, advantage, weight)
@group(0) @binding(3) var<storage, read> prox_logp: array<f32>;     // (N) proximal policy (or logp when absent)
@group(0) @binding(4) var<storage, read> ref_logp: array<f32>;      // (N) reference model (or logp when absent)
@group(0) @binding(5) var<storage, read> entropy: array<f32>;       // (N) H_n (or logp when absent)
@group(0) @binding(6) var<storage, read_write> dlogp: array<f32>;   // (N) or (N, 3) rows (dlogp, dH, H)
@group(0) @binding(7) var<storage, read_write> stats: array<f32>;   // (N, STATS):
//   0 pg = w·(−ρ·surr)   1 k3 (unweighted)   2 r   3 r_old − 1 − log r_old = exp(x) − 1 − x,
//   x = logp − oldLogp (the approx_kl estimate of KL(π_old ‖ π))
//   4 ρ   5 H   6 flag bits (as f32)   7 term = w·ℓ_n (pg + KL + entropy)

fn is_finite(x: f32) -> bool { return (bitcast<u32>(x) & 0x7f800000u) != 0x7f800000u; }

fn has(bit: u32) -> bool { return (params.flags & bit) != 0u; }

// exp(x) − 1 − x without cancellation near 0 (Taylor to x⁹ for |x| < 0.5: error < 1e-8 relative)
fn expm1_minus_x(x: f32) -> f32 {
  if (abs(x) < 0.5) {
    return x * x * (0.5 + x * (1.0 / 6.0 + x * (1.0 / 24.0 + x * (1.0 / 120.0 + x * (1.0 / 720.0 + x * (1.0 / 5040.0 + x * (1.0 / 40320.0 + x / 362880.0)))))));
  }
  return exp(min(x, MAX_EXP)) - 1.0 - x;
}

@compute @workgroup_size(WG)
fn forward_grpo_loss(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let n = gid.x + gid.y * nwg.x * WG;
  if (n >= params.N) { return; }
  let old = tokens[3u * n];
  let A = tokens[3u * n + 1u];
  let w = tokens[3u * n + 2u];
  var g = 0.0;       // dlogp[n]
  var dH = 0.0;      // ∂loss/∂H_n
  var H = 0.0;
  var st = array<f32, STATS>(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
  if (w != 0.0) {
    let lp = logp[n];
    var bits = 0u;
    var ok = is_finite(lp) && is_finite(old) && is_finite(A);
    // forward: ρ = min(exp(prox − old), tisCap) (a constant), base = prox
    var base = old;
    var rho = 1.0;
    if (has(HAS_PROX)) {
      base = prox_logp[n];
      ok = ok && is_finite(base);
      let raw = exp(min(base - old, MAX_EXP));
      rho = min(raw, params.tisCap);
      if (raw > params.tisCap) { bits = bits | TIS_CAPPED; }
    }
    let r = exp(min(lp - base, MAX_EXP));
    let lo = 1.0 - params.epsLow;
    let hi = 1.0 + params.epsHigh;
    // surr = min(r·A, clamp(r)·A): the clamp branch is strictly smaller only in these two cases
    let high = A > 0.0 && r > hi;
    let low = A < 0.0 && r < lo;
    let surr = min(r * A, clamp(r, lo, hi) * A);
    let pg = w * (-rho * surr);
    var dl = select(-rho * r * A, 0.0, high || low); // ∂(−ρ·surr)/∂logp
    var term = pg;
    var k3 = 0.0;
    if (has(HAS_REF)) {
      let lr = ref_logp[n];
      ok = ok && is_finite(lr);
      let d = lr - lp;
      let e = expm1_minus_x(d);
      k3 = e;                                   // exp(d) − d − 1
      term = term + w * params.klCoef * k3;
      dl = dl - params.klCoef * (e + d);        // ∂k3/∂logp = 1 − exp(d) = −(exp(d) − 1)
    }
    if (has(HAS_ENTROPY)) {
      H = entropy[n];
      ok = ok && is_finite(H);
      dH = -params.entropyCoef * w;
      term = term + dH * H;
    }
    g = w * dl;
    if (high) { bits = bits | CLIP_HIGH; }
    if (low) { bits = bits | CLIP_LOW; }
    // a ratio past e^88 on a negative advantage: r·A would overflow f32 (the float64 host may still
    // represent it, but an update driven by a ~1e38 ratio is not worth keeping)
    let overflow = lp - base > MAX_EXP && A < 0.0;
    if (overflow || !is_finite(term) || !is_finite(g) || !is_finite(pg)) { bits = bits | BAD_OUTPUT; }
    if (ok) {
      st = array<f32, STATS>(pg, k3, r, expm1_minus_x(lp - old), rho, H, f32(bits), term);
    } else {
      // report only the bad input (the other flags would be meaningless) and keep NaN out of the backward
      st[6] = f32(BAD_INPUT);
      g = 0.0;
      dH = 0.0;
      H = 0.0;
    }
  }
  if (has(WRITE_ROWS)) {
    dlogp[3u * n] = g;
    dlogp[3u * n + 1u] = dH;
    dlogp[3u * n + 2u] = H;
  } else {
    dlogp[n] = g;
  }
  for (var c = 0u; c < STATS; c = c + 1u) { stats[STATS * n + c] = st[c]; }
}
