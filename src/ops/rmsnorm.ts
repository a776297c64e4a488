// RMSNorm on the GPU (shaders/rmsnorm.wgsl). Also Qwen3's per-head QK-norm: view (B, T, H, D) as
// (N = B·T·H, C = D) with a (D) weight shared by all heads.
import code from '../../shaders/rmsnorm.wgsl?raw';
import type { GpuRuntime } from '../gpu/runtime';
import { packParams } from '../gpu/runtime';
import type { Tensor } from '../gpu/tensor';
import { grid1d, gridRows } from './grid';

export interface RmsnormSpec {
  /** Rows (tokens, or tokens·heads for QK-norm). */
  N: number;
  /** Normalised width (hidden size, or head dim). */
  C: number;
  eps: number;
}

function check(spec: RmsnormSpec, x: Tensor, w: Tensor, what: string): void {
  if (x.size !== spec.N * spec.C) throw new Error(`${what}: x '${x.label}' has ${x.size} elements, needs N·C = ${spec.N}·${spec.C}`);
  if (w.size !== spec.C) throw new Error(`${what}: weight '${w.label}' has ${w.size} elements, needs C = ${spec.C}`);
}

/** Rows at most this wide use one invocation per row (v2), wider ones a workgroup per row (v1). */
export const ROW_KERNEL_MAX_C = 256;

const params = (s: RmsnormSpec, accumulate = false) => packParams([['u32', s.N], ['u32', s.C], ['f32', s.eps], ['u32', accumulate ? 1 : 0]]);

/** out (N, C) = x · rstd · w; rstd (N) is saved for the backward. */
export function rmsnormForward(rt: GpuRuntime, x: Tensor, w: Tensor, spec: RmsnormSpec, outs?: { out?: Tensor; rstd?: Tensor }): { out: Tensor; rstd: Tensor } {
  check(spec, x, w, 'rmsnormForward');
  const out = outs?.out ?? rt.empty(x.shape, 'f32', 'rmsnorm.out');
  const rstd = outs?.rstd ?? rt.empty([spec.N], 'f32', 'rmsnorm.rstd');
  const perRow = spec.C <= ROW_KERNEL_MAX_C;
  rt.dispatch({
    op: 'rmsnorm_forward', code, entryPoint: perRow ? 'forward_rmsnorm_row' : 'forward_rmsnorm', params: params(spec),
    bindings: { 1: x, 2: w, 3: out, 4: rstd }, workgroups: perRow ? grid1d(spec.N, 64) : gridRows(spec.N),
  });
  return { out, rstd };
}

/**
 * dx (N, C) and dw (C). With `accumulateDw`, dw += the new gradient (dw must be given and hold
 * the running sum), which is how gradient accumulation over micro-batches works.
 */
export function rmsnormBackward(
  rt: GpuRuntime, dout: Tensor, x: Tensor, w: Tensor, rstd: Tensor, spec: RmsnormSpec,
  outs?: { dx?: Tensor; dw?: Tensor; accumulateDw?: boolean },
): { dx: Tensor; dw: Tensor } {
  check(spec, x, w, 'rmsnormBackward');
  if (dout.size !== x.size) throw new Error(`rmsnormBackward: dout has ${dout.size} elements, x ${x.size}`);
  if (outs?.accumulateDw && !outs.dw) throw new Error('rmsnormBackward: accumulateDw needs the dw tensor to accumulate into');
  const dx = outs?.dx ?? rt.empty(x.shape, 'f32', 'rmsnorm.dx');
  const dw = outs?.dw ?? rt.empty([spec.C], 'f32', 'rmsnorm.dw');
  const p = params(spec, outs?.accumulateDw ?? false);
  const perRow = spec.C <= ROW_KERNEL_MAX_C;
  rt.dispatch({
    op: 'rmsnorm_backward_dx', code, entryPoint: perRow ? 'backward_rmsnorm_dx_row' : 'backward_rmsnorm_dx', params: p,
    bindings: { 1: x, 2: w, 5: dout, 6: rstd, 7: dx }, workgroups: perRow ? grid1d(spec.N, 64) : gridRows(spec.N),
  });
  rt.dispatch({ op: 'rmsnorm_backward_dw', code, entryPoint: 'backward_rmsnorm_dw', params: p, bindings: { 1: x, 5: dout, 6: rstd, 8: dw }, workgroups: grid1d(spec.C, 64) });
  return { dx, dw };
}
