// Rotary position embedding on the GPU (shaders/rope.wgsl), HF/Qwen3 rotate_half convention.
// cos/sin tables (P, D/2) are computed in float64 on the host once per (θ, D, P) and cached.
import code from '../../shaders/rope.wgsl?raw';
import type { GpuRuntime } from '../gpu/runtime';
import { packParams } from '../gpu/runtime';
import type { Tensor } from '../gpu/tensor';
import { grid1d } from './grid';

export interface RopeSpec {
  B: number;
  T: number;
  /** Heads of this tensor (query heads for q, kv heads for k). */
  H: number;
  /** Head dim (even). */
  D: number;
  theta: number;
  /** P: positions must lie in [0, P) (the model's maxPositionEmbeddings); larger ones are clamped. */
  maxPosition: number;
}

interface RopeTables {
  cos: Tensor; // (P, D/2)
  sin: Tensor; // (P, D/2)
}

const tables = new WeakMap<GpuRuntime, Map<string, RopeTables>>();

function ropeTables(rt: GpuRuntime, theta: number, D: number, P: number): RopeTables {
  let perRt = tables.get(rt);
  if (!perRt) tables.set(rt, (perRt = new Map()));
  const key = `${theta}|${D}|${P}`;
  let t = perRt.get(key);
  if (!t) {
    const half = D / 2;
    const cos = new Float32Array(P * half);
    const sin = new Float32Array(P * half);
    for (let p = 0; p < P; p++) {
      for (let i = 0; i < half; i++) {
        const angle = p * Math.pow(theta, (-2 * i) / D);
        cos[p * half + i] = Math.cos(angle);
        sin[p * half + i] = Math.sin(angle);
      }
    }
    t = { cos: rt.upload(cos, [P, half], 'f32', 'rope.cos'), sin: rt.upload(sin, [P, half], 'f32', 'rope.sin') };
    perRt.set(key, t);
  }
  return t;
}

function run(rt: GpuRuntime, x: Tensor, positions: Tensor, spec: RopeSpec, sign: 1 | -1, what: string, out?: Tensor): Tensor {
  const { B, T, H, D, theta, maxPosition: P } = spec;
  if (D % 2 !== 0) throw new Error(`${what}: head dim D = ${D} must be even`);
  if (x.size !== B * T * H * D) throw new Error(`${what}: '${x.label}' has ${x.size} elements, needs B·T·H·D = ${B * T * H * D}`);
  if (positions.dtype !== 'i32' || positions.size !== B * T) throw new Error(`${what}: positions must be i32 (B, T) = ${B * T} elements, got ${positions.dtype} ${positions.size}`);
  const { cos, sin } = ropeTables(rt, theta, D, P);
  const o = out ?? rt.empty(x.shape, 'f32', `${what}.out`);
  rt.dispatch({
    op: sign > 0 ? 'rope_forward' : 'rope_backward', code, entryPoint: 'forward_rope',
    params: packParams([['u32', B * T], ['u32', H], ['u32', D], ['u32', P], ['f32', sign]]),
    bindings: { 1: x, 2: positions, 3: cos, 4: sin, 5: o }, workgroups: grid1d((B * T * H * D) / 2, 256),
  });
  return o;
}

/** out (B, T, H, D) = x rotated by each token's position (positions: i32 (B, T)). */
export function ropeForward(rt: GpuRuntime, x: Tensor, positions: Tensor, spec: RopeSpec, out?: Tensor): Tensor {
  return run(rt, x, positions, spec, 1, 'ropeForward', out);
}

/** dx = Rᵀ · dout: the inverse rotation. */
export function ropeBackward(rt: GpuRuntime, dout: Tensor, positions: Tensor, spec: RopeSpec, dx?: Tensor): Tensor {
  return run(rt, dout, positions, spec, -1, 'ropeBackward', dx);
}
