// Elementwise ops of the Qwen3 block: SwiGLU (forward/backward), residual add, accumulate.
// Flat index over a 2-D grid: i = gid.x + gid.y · (num_workgroups.x · WG) (see src/ops/grid.ts).
// Variables are declared once with unique bindings; each entry point binds only what it uses.

const WG: u32 = 256u;

struct Params { n: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> gate: array<f32>;        // (N) SwiGLU gate projection
@group(0) @binding(2) var<storage, read> up: array<f32>;          // (N) SwiGLU up projection
@group(0) @binding(3) var<storage, read_write> out: array<f32>;   // (N) result (forward)
@group(0) @binding(4) var<storage, read> dout: array<f32>;        // (N) upstream gradient
@group(0) @binding(5) var<storage, read_write> dgate: array<f32>; // (N)
@group(0) @binding(6) var<storage, read_write> dup: array<f32>;   // (N)
@group(0) @binding(7) var<storage, read> a: array<f32>;           // (N) add operand
@group(0) @binding(8) var<storage, read> b: array<f32>;           // (N) add operand
@group(0) @binding(9) var<storage, read_write> acc: array<f32>;   // (N) accumulator (acc += a)

fn flat(gid: vec3<u32>, nwg: vec3<u32>) -> u32 { return gid.x + gid.y * nwg.x * WG; }

// σ(x) without overflow: exp of a non-positive argument only.
fn sigmoid(x: f32) -> f32 {
  if (x >= 0.0) { return 1.0 / (1.0 + exp(-x)); }
  let e = exp(x);
  return e / (1.0 + e);
}

// out = silu(gate) · up, silu(x) = x · σ(x)
@compute @workgroup_size(WG)
fn forward_swiglu(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = flat(gid, nwg);
  if (i >= params.n) { return; }
  let g = gate[i];
  out[i] = g * sigmoid(g) * up[i];
}

// d/dgate silu(g)·u = u · σ(g) · (1 + g · (1 − σ(g)));  d/dup = silu(g)
@compute @workgroup_size(WG)
fn backward_swiglu(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = flat(gid, nwg);
  if (i >= params.n) { return; }
  let g = gate[i];
  let s = sigmoid(g);
  let d = dout[i];
  dgate[i] = d * up[i] * s * (1.0 + g * (1.0 - s));
  dup[i] = d * g * s;
}

// out = a + b (residual connection). Its backward is the identity for both operands.
@compute @workgroup_size(WG)
fn forward_add(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = flat(gid, nwg);
  if (i >= params.n) { return; }
  out[i] = a[i] + b[i];
}

// acc += a (gradient accumulation where a tensor feeds two consumers, e.g. the residual stream).
@compute @workgroup_size(WG)
fn forward_accumulate(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = flat(gid, nwg);
  if (i >= params.n) { return; }
  acc[i] = acc[i] + a[i];
}
