// HF Linear layers (no bias): y = x·Wᵀ with W (out, in), and their gradients, as matmuls.
// The one place the model talks to the matmul op, so its calling convention lives here.
// A frozen weight stored as packed f16 (LoRA with baseDtype 'f16', ./lora) takes the packed kernels
// (src/ops/matmulPackedF16); it has no weight gradient.
import type { GpuRuntime } from '../gpu/runtime';
import type { Tensor } from '../gpu/tensor';
import { accumulate } from '../ops/elementwise';
import { matmulForward } from '../ops/matmul';
import { isPackedF16, matmulPackedF16BackwardInput, matmulPackedF16Forward } from '../ops/matmulPackedF16';

/** y (N, out) = x (N, in) · W (out, in)ᵀ */
export function linearForward(rt: GpuRuntime, x: Tensor, W: Tensor, rows: number, inF: number, outF: number, out?: Tensor): Tensor {
  if (isPackedF16(W)) return matmulPackedF16Forward(rt, x, W, { rows, inF, outF }, out);
  return matmulForward(rt, x, W, { batch: 1, M: rows, K: inF, N: outF, transA: false, transB: true }, out);
}

/** dx (N, in) = dy (N, out) · W (out, in); with `accumulate`, dx += … (a sum over a weight's row parts). */
export function linearBackwardInput(rt: GpuRuntime, dy: Tensor, W: Tensor, rows: number, inF: number, outF: number, dx?: Tensor, accumulate = false): Tensor {
  if (isPackedF16(W)) return matmulPackedF16BackwardInput(rt, dy, W, { rows, inF, outF }, dx, { accumulate });
  return matmulForward(rt, dy, W, { batch: 1, M: rows, K: outF, N: inF, transA: false, transB: false }, dx, { accumulate });
}

/** dW (out, in) += dy (N, out)ᵀ · x (N, in), accumulated by the matmul itself (no scratch). */
export function linearBackwardWeightAccumulate(rt: GpuRuntime, dy: Tensor, x: Tensor, rows: number, inF: number, outF: number, dW: Tensor): void {
  matmulForward(rt, dy, x, { batch: 1, M: outF, K: rows, N: inF, transA: true, transB: false }, dW, { accumulate: true });
}

/**
 * dW (out, in) += dy (N, out)ᵀ · x (N, in). `scratch` (out, in) receives the new term, which is
 * then added into dW, so gradients accumulate over micro-batches and tied uses.
 */
export function linearBackwardWeight(rt: GpuRuntime, dy: Tensor, x: Tensor, rows: number, inF: number, outF: number, dW: Tensor, scratch: Tensor): void {
  matmulForward(rt, dy, x, { batch: 1, M: outF, K: rows, N: inF, transA: true, transB: false }, scratch);
  accumulate(rt, dW, scratch);
}
