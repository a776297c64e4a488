// HF Linear layers (no bias): y = x·Wᵀ with W (out, in), and their gradients, as matmuls.
// The one place the model talks to the matmul op, so its calling convention lives here.
import type { GpuRuntime } from '../gpu/runtime';
import type { Tensor } from '../gpu/tensor';
import { accumulate } from '../ops/elementwise';
import { matmulForward } from '../ops/matmul';

/** y (N, out) = x (N, in) · W (out, in)ᵀ */
export function linearForward(rt: GpuRuntime, x: Tensor, W: Tensor, rows: number, inF: number, outF: number, out?: Tensor): Tensor {
  return matmulForward(rt, x, W, { batch: 1, M: rows, K: inF, N: outF, transA: false, transB: true }, out);
}

/** dx (N, in) = dy (N, out) · W (out, in) */
export function linearBackwardInput(rt: GpuRuntime, dy: Tensor, W: Tensor, rows: number, inF: number, outF: number, dx?: Tensor): Tensor {
  return matmulForward(rt, dy, W, { batch: 1, M: rows, K: outF, N: inF, transA: false, transB: false }, dx);
}

/**
 * dW (out, in) += dy (N, out)ᵀ · x (N, in). `scratch` (out, in) receives the new term, which is
 * then added into dW, so gradients accumulate over micro-batches and tied uses.
 */
export function linearBackwardWeight(rt: GpuRuntime, dy: Tensor, x: Tensor, rows: number, inF: number, outF: number, dW: Tensor, scratch: Tensor): void {
  matmulForward(rt, dy, x, { batch: 1, M: outF, K: rows, N: inF, transA: true, transB: false }, scratch);
  accumulate(rt, dW, scratch);
}
