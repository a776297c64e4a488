// Block copy between row-major matrices of different widths (shaders/copyBlock.wgsl): the glue
// that lets the LM head work on a vocabulary split into row parts (src/model/lmHead.ts).
import code from '../../shaders/copyBlock.wgsl?raw';
import type { GpuRuntime } from '../gpu/runtime';
import { packParams } from '../gpu/runtime';
import type { Tensor } from '../gpu/tensor';
import { grid1d } from './grid';

const WG = 256;

export interface BlockSpec {
  rows: number;
  cols: number;
  /** Width (floats per row) of src and the first column read. */
  srcStride: number;
  srcCol0: number;
  /** Width of dst and the first column written. */
  dstStride: number;
  dstCol0: number;
  /** dst += block instead of dst = block. */
  accumulate?: boolean;
}

/** dst[r, dstCol0 + c] (+)= src[r, srcCol0 + c] for r < rows, c < cols. */
export function copyBlock(rt: GpuRuntime, src: Tensor, dst: Tensor, s: BlockSpec): void {
  for (const k of ['rows', 'cols', 'srcStride', 'dstStride'] as const) {
    if (!Number.isInteger(s[k]) || s[k] < 1) throw new Error(`copyBlock: ${k} must be a positive integer, got ${s[k]}`);
  }
  if (s.srcCol0 < 0 || s.srcCol0 + s.cols > s.srcStride) throw new Error(`copyBlock: columns [${s.srcCol0}, ${s.srcCol0 + s.cols}) do not fit src rows of ${s.srcStride}`);
  if (s.dstCol0 < 0 || s.dstCol0 + s.cols > s.dstStride) throw new Error(`copyBlock: columns [${s.dstCol0}, ${s.dstCol0 + s.cols}) do not fit dst rows of ${s.dstStride}`);
  if (src.size < s.rows * s.srcStride) throw new Error(`copyBlock: src '${src.label}' has ${src.size} elements, needs ${s.rows} rows of ${s.srcStride}`);
  if (dst.size < s.rows * s.dstStride) throw new Error(`copyBlock: dst '${dst.label}' has ${dst.size} elements, needs ${s.rows} rows of ${s.dstStride}`);
  if (src.buffer === dst.buffer) throw new Error(`copyBlock: '${src.label}' is both source and destination`);
  rt.dispatch({
    op: 'copy_block', code, entryPoint: 'forward_copy_block',
    params: packParams([['u32', s.rows], ['u32', s.cols], ['u32', s.srcStride], ['u32', s.srcCol0], ['u32', s.dstStride], ['u32', s.dstCol0], ['u32', s.accumulate ? 1 : 0]]),
    bindings: [src, dst], workgroups: grid1d(s.rows * s.cols, WG),
  });
}
