// A tensor is a GPU buffer plus its logical shape and element type. Row-major, contiguous.

export type DType = 'f32' | 'u32' | 'i32';

export interface Tensor {
  readonly buffer: GPUBuffer;
  readonly shape: readonly number[];
  readonly dtype: DType;
  /** Number of elements = product of shape. */
  readonly size: number;
  /** Debug name (shows in validation messages). */
  readonly label: string;
}

export const BYTES_PER_ELEMENT = 4; // every dtype TabForge stores in buffers is 32-bit

export function shapeSize(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) {
    if (!Number.isInteger(d) || d < 0) throw new Error(`invalid tensor shape [${shape.join(', ')}]`);
    n *= d;
  }
  return n;
}

export function tensorBytes(t: Pick<Tensor, 'size'>): number {
  return t.size * BYTES_PER_ELEMENT;
}

export type HostArray = Float32Array | Int32Array | Uint32Array;

export function hostArrayFor(dtype: DType, data: ArrayBuffer): HostArray {
  if (dtype === 'f32') return new Float32Array(data);
  if (dtype === 'i32') return new Int32Array(data);
  return new Uint32Array(data);
}

export function assertShape(t: Tensor, shape: readonly number[], what: string): void {
  if (t.shape.length !== shape.length || t.shape.some((d, i) => d !== shape[i])) {
    throw new Error(`${what}: expected shape [${shape.join(', ')}], got [${t.shape.join(', ')}] (tensor '${t.label}')`);
  }
}

/** The same buffer seen with another shape of equal size (no copy). Release only one of the views. */
export function reshape(t: Tensor, shape: readonly number[], label = t.label): Tensor {
  const size = shapeSize(shape);
  if (size !== t.size) throw new Error(`reshape '${t.label}': [${t.shape.join(', ')}] has ${t.size} elements, [${shape.join(', ')}] has ${size}`);
  return { buffer: t.buffer, shape: [...shape], dtype: t.dtype, size, label };
}

/**
 * The first elements of a tensor seen with a smaller shape (no copy): the last, shorter chunk of a
 * chunked loop. Kernels bind the whole buffer and index only the view's elements.
 */
export function prefixView(t: Tensor, shape: readonly number[], label = t.label): Tensor {
  const size = shapeSize(shape);
  if (size > t.size) throw new Error(`prefixView '${t.label}': [${shape.join(', ')}] has ${size} elements, more than its ${t.size}`);
  if (size === t.size) return reshape(t, shape, label);
  return { ...t, buffer: t.buffer, shape: [...shape], dtype: t.dtype, size, label };
}
