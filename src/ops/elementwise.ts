// SwiGLU and residual add on the GPU (shaders/elementwise.wgsl), forward and backward side by side.
import code from '../../shaders/elementwise.wgsl?raw';
import type { GpuRuntime } from '../gpu/runtime';
import { packParams } from '../gpu/runtime';
import type { Tensor } from '../gpu/tensor';
import { grid1d } from './grid';

const WG = 256;

function sameSize(what: string, ...ts: Tensor[]): number {
  const n = ts[0].size;
  for (const t of ts) {
    if (t.size !== n) throw new Error(`${what}: '${t.label}' has ${t.size} elements, expected ${n} like '${ts[0].label}'`);
  }
  return n;
}

/** out = silu(gate) · up.  gate, up, out: (N, F) flattened. */
export function swigluForward(rt: GpuRuntime, gate: Tensor, up: Tensor, out?: Tensor): Tensor {
  const n = sameSize('swigluForward', gate, up, ...(out ? [out] : []));
  const o = out ?? rt.empty(gate.shape, 'f32', 'swiglu.out');
  rt.dispatch({ op: 'swiglu_forward', code, entryPoint: 'forward_swiglu', params: packParams([['u32', n]]), bindings: { 1: gate, 2: up, 3: o }, workgroups: grid1d(n, WG) });
  return o;
}

/** Gradients of out = silu(gate) · up with respect to gate and up. */
export function swigluBackward(rt: GpuRuntime, dout: Tensor, gate: Tensor, up: Tensor, outs?: { dgate?: Tensor; dup?: Tensor }): { dgate: Tensor; dup: Tensor } {
  const n = sameSize('swigluBackward', dout, gate, up);
  const dgate = outs?.dgate ?? rt.empty(gate.shape, 'f32', 'swiglu.dgate');
  const dup = outs?.dup ?? rt.empty(up.shape, 'f32', 'swiglu.dup');
  sameSize('swigluBackward outputs', dout, dgate, dup);
  rt.dispatch({
    op: 'swiglu_backward', code, entryPoint: 'backward_swiglu', params: packParams([['u32', n]]),
    bindings: { 1: gate, 2: up, 4: dout, 5: dgate, 6: dup }, workgroups: grid1d(n, WG),
  });
  return { dgate, dup };
}

/** out = a + b (the residual connection). */
export function addForward(rt: GpuRuntime, a: Tensor, b: Tensor, out?: Tensor): Tensor {
  const n = sameSize('addForward', a, b, ...(out ? [out] : []));
  const o = out ?? rt.empty(a.shape, 'f32', 'add.out');
  rt.dispatch({ op: 'add_forward', code, entryPoint: 'forward_add', params: packParams([['u32', n]]), bindings: { 3: o, 7: a, 8: b }, workgroups: grid1d(n, WG) });
  return o;
}

/** Backward of out = a + b: both operands receive dout unchanged (no kernel, no copy). */
export function addBackward(dout: Tensor): { da: Tensor; db: Tensor } {
  return { da: dout, db: dout };
}

/** acc += x, in place (sums the gradients of a tensor used twice). */
export function accumulate(rt: GpuRuntime, acc: Tensor, x: Tensor): Tensor {
  const n = sameSize('accumulate', acc, x);
  rt.dispatch({ op: 'accumulate', code, entryPoint: 'forward_accumulate', params: packParams([['u32', n]]), bindings: { 7: x, 9: acc }, workgroups: grid1d(n, WG) });
  return acc;
}
