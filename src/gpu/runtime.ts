// The GPU runtime every op uses: tensors from a buffer pool, dispatches recorded into one command
// encoder (flushed in batches), per-op validation scopes, uniform parameter buffers cached by
// content, readback that never hangs on a lost device, and optional GPU timestamps per op.
import { BufferPool } from './bufferPool';
import type { GpuContext } from './device';
import { GpuError, validationError } from './errors';
import { PipelineCache } from './pipelineCache';
import { BYTES_PER_ELEMENT, type DType, type HostArray, type Tensor, hostArrayFor, shapeSize } from './tensor';

// Functions, not constants: in Node the GPUBufferUsage global appears only once `webgpu` is set up.
const STORAGE = () => GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
const READBACK = () => GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST;
const MAX_TIMED_OPS = 512;
const FLUSH_EVERY = 64; // dispatches per submit: keeps the queue fed without huge command buffers

export type Binding = Tensor | GPUBuffer;

export interface DispatchSpec {
  /** Op name for labels, timing and error messages, e.g. 'matmul_forward'. */
  op: string;
  /** WGSL source. */
  code: string;
  entryPoint: string;
  constants?: Record<string, number>;
  /** Uniform parameters, bound at @binding(0) when given (a 16-byte-aligned struct). */
  params?: ArrayBuffer | ArrayBufferView;
  /**
   * Storage buffers: an array binds in order from @binding(1) (or @binding(0) when no params);
   * a record binds each at its explicit @binding number — lets the entry points of one .wgsl file
   * share variable declarations while each uses its own subset.
   */
  bindings: Binding[] | Record<number, Binding>;
  /** Workgroup counts (x, y, z). */
  workgroups: [number, number?, number?];
}

export interface OpTiming {
  op: string;
  ms: number;
}

export interface RuntimeOptions {
  /** Record GPU timestamps per op (only when the device has timestamp-query). */
  timing?: boolean;
}

/** Packs numbers into a uniform struct: each entry is u32, i32 or f32, 4 bytes, padded to 16. */
export function packParams(fields: Array<[kind: 'u32' | 'i32' | 'f32', value: number]>): ArrayBuffer {
  const buf = new ArrayBuffer(Math.max(16, Math.ceil((fields.length * 4) / 16) * 16));
  const view = new DataView(buf);
  fields.forEach(([kind, v], i) => {
    if (kind === 'f32') view.setFloat32(i * 4, v, true);
    else if (kind === 'i32') view.setInt32(i * 4, v, true);
    else view.setUint32(i * 4, v, true);
  });
  return buf;
}

export class GpuRuntime {
  readonly device: GPUDevice;
  readonly pool: BufferPool;
  readonly pipelines: PipelineCache;
  private encoder: GPUCommandEncoder | null = null;
  private encodedOps: string[] = [];
  private pendingErrors: Promise<GpuError | null>[] = [];
  private uncaptured: GpuError | null = null;
  private uniforms = new Map<string, GPUBuffer>();
  private querySet: GPUQuerySet | null = null;
  private queryOps: string[] = [];
  private timingsOut: OpTiming[] = [];
  private resolveBuf: GPUBuffer | null = null;

  constructor(
    readonly ctx: GpuContext,
    opts: RuntimeOptions = {},
  ) {
    this.device = ctx.device;
    this.pool = new BufferPool(this.device);
    this.pipelines = new PipelineCache(this.device);
    this.device.addEventListener('uncapturederror', (ev) => {
      const e = (ev as GPUUncapturedErrorEvent).error;
      this.uncaptured ??= validationError(this.encodedOps.at(-1) ?? 'unknown', e.message);
    });
    if (opts.timing && ctx.features.timestampQuery) {
      this.querySet = this.device.createQuerySet({ type: 'timestamp', count: MAX_TIMED_OPS * 2 });
      this.resolveBuf = this.device.createBuffer({
        size: MAX_TIMED_OPS * 16,
        usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC,
      });
    }
  }

  get timingEnabled(): boolean {
    return this.querySet !== null;
  }

  // ---- tensors ---------------------------------------------------------------------------

  /** A pooled tensor (contents undefined until written). */
  empty(shape: readonly number[], dtype: DType = 'f32', label = 'tensor'): Tensor {
    const size = shapeSize(shape);
    const buffer = this.pool.acquire(size * BYTES_PER_ELEMENT, STORAGE(), label);
    return { buffer, shape: [...shape], dtype, size, label };
  }

  /** A pooled tensor filled with zeros (clearBuffer, recorded in order with other ops). */
  zeros(shape: readonly number[], dtype: DType = 'f32', label = 'zeros'): Tensor {
    const t = this.empty(shape, dtype, label);
    this.clear(t);
    return t;
  }

  /** Uploads host data into a new pooled tensor. */
  upload(data: HostArray | number[], shape: readonly number[], dtype: DType = 'f32', label = 'upload'): Tensor {
    const t = this.empty(shape, dtype, label);
    this.write(t, data);
    return t;
  }

  /** Writes host data into a tensor, ordered after every op recorded so far. */
  write(t: Tensor, data: HostArray | number[]): void {
    const arr = Array.isArray(data) ? (t.dtype === 'f32' ? new Float32Array(data) : t.dtype === 'i32' ? new Int32Array(data) : new Uint32Array(data)) : data;
    if (arr.length !== t.size) throw new Error(`write '${t.label}': ${arr.length} values for a tensor of ${t.size} [${t.shape.join(', ')}]`);
    // queue.writeBuffer runs before any unsubmitted commands; submit them first to keep program order.
    this.flush();
    this.device.queue.writeBuffer(t.buffer, 0, arr.buffer, arr.byteOffset, arr.byteLength);
  }

  /**
   * Writes host data into part of a tensor, from element `offset` on (u32 words for packed tensors),
   * ordered after every op recorded so far. Lets a large tensor be filled a slice at a time.
   */
  writeAt(t: Tensor, offset: number, data: HostArray): void {
    if (!Number.isInteger(offset) || offset < 0 || offset + data.length > t.size) {
      throw new Error(`writeAt '${t.label}': ${data.length} values at element ${offset} do not fit its ${t.size} [${t.shape.join(', ')}]`);
    }
    this.flush();
    this.device.queue.writeBuffer(t.buffer, offset * BYTES_PER_ELEMENT, data.buffer, data.byteOffset, data.byteLength);
  }

  clear(t: Tensor): void {
    this.enc().clearBuffer(t.buffer, 0, BufferPool.paddedSize(t.size * BYTES_PER_ELEMENT));
  }

  copy(src: Tensor, dst: Tensor): void {
    if (src.size !== dst.size) throw new Error(`copy: '${src.label}' has ${src.size} elements, '${dst.label}' ${dst.size}`);
    this.enc().copyBufferToBuffer(src.buffer, 0, dst.buffer, 0, src.size * BYTES_PER_ELEMENT);
  }

  /** Copies `count` elements of src from element srcOffset to dst at element dstOffset (distinct tensors). */
  copyRange(src: Tensor, srcOffset: number, dst: Tensor, dstOffset: number, count: number): void {
    if (src.buffer === dst.buffer) throw new Error(`copyRange: '${src.label}' is both source and destination (WebGPU copies need two buffers)`);
    if (srcOffset < 0 || dstOffset < 0 || count < 0 || srcOffset + count > src.size || dstOffset + count > dst.size) {
      throw new Error(`copyRange: ${count} elements from ${srcOffset} of '${src.label}' (${src.size}) to ${dstOffset} of '${dst.label}' (${dst.size}) is out of range`);
    }
    this.enc().copyBufferToBuffer(src.buffer, srcOffset * BYTES_PER_ELEMENT, dst.buffer, dstOffset * BYTES_PER_ELEMENT, count * BYTES_PER_ELEMENT);
  }

  release(...ts: (Tensor | null | undefined)[]): void {
    for (const t of ts) if (t) this.pool.release(t.buffer);
  }

  /** Reads a tensor back to the host. Rejects (never hangs) if the device is lost. */
  async read(t: Tensor): Promise<HostArray> {
    const bytes = t.size * BYTES_PER_ELEMENT;
    const staging = this.pool.acquire(bytes, READBACK(), `readback:${t.label}`);
    this.enc().copyBufferToBuffer(t.buffer, 0, staging, 0, BufferPool.paddedSize(bytes));
    this.flush();
    try {
      await this.raceLost(staging.mapAsync(GPUMapMode.READ));
      const out = hostArrayFor(t.dtype, staging.getMappedRange(0, BufferPool.paddedSize(bytes)).slice(0, bytes));
      staging.unmap();
      await this.sync(false);
      return out;
    } finally {
      if (staging.mapState === 'unmapped') this.pool.release(staging);
    }
  }

  async readF32(t: Tensor): Promise<Float32Array> {
    const a = await this.read(t);
    return a instanceof Float32Array ? a : new Float32Array(a);
  }

  // ---- dispatch --------------------------------------------------------------------------

  dispatch(spec: DispatchSpec): void {
    if (this.ctx.lostError) throw this.ctx.lostError;
    const pipeline = this.pipelines.get(spec);
    const entries: GPUBindGroupEntry[] = [];
    let slot = 0;
    if (spec.params) entries.push({ binding: slot++, resource: { buffer: this.uniformFor(spec.op, spec.params) } });
    const list: [number, Binding][] = Array.isArray(spec.bindings)
      ? spec.bindings.map((b, i) => [slot + i, b])
      : Object.entries(spec.bindings).map(([k, b]) => [Number(k), b]);
    for (const [binding, b] of list) {
      const buffer = 'buffer' in b ? b.buffer : b;
      entries.push({ binding, resource: { buffer } });
    }
    this.device.pushErrorScope('validation');
    const bindGroup = this.device.createBindGroup({ label: spec.op, layout: pipeline.getBindGroupLayout(0), entries });
    const timed = this.querySet !== null && this.queryOps.length < MAX_TIMED_OPS;
    const q = this.queryOps.length;
    const pass = this.enc().beginComputePass({
      label: spec.op,
      timestampWrites: timed ? { querySet: this.querySet!, beginningOfPassWriteIndex: 2 * q, endOfPassWriteIndex: 2 * q + 1 } : undefined,
    });
    if (timed) this.queryOps.push(spec.op);
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, bindGroup);
    const [x, y = 1, z = 1] = spec.workgroups;
    pass.dispatchWorkgroups(x, y, z);
    pass.end();
    const op = spec.op;
    this.pendingErrors.push(this.device.popErrorScope().then((e) => (e ? validationError(op, e.message) : null)));
    this.encodedOps.push(op);
    if (this.encodedOps.length >= FLUSH_EVERY) this.flush();
  }

  /** Submits everything recorded so far. Validation errors from encoding surface at the next sync. */
  flush(): void {
    if (!this.encoder) return;
    const ops = this.encodedOps.splice(0);
    const label = ops.length ? `${ops[0]}…${ops[ops.length - 1]}` : 'copies';
    this.device.pushErrorScope('validation');
    const cmd = this.encoder.finish({ label });
    this.encoder = null;
    this.device.queue.submit([cmd]);
    this.pendingErrors.push(this.device.popErrorScope().then((e) => (e ? validationError(label, e.message) : null)));
  }

  /** Flushes, waits for the GPU, and throws the first compile/validation error or device loss. */
  async sync(waitForGpu = true): Promise<void> {
    this.flush();
    if (waitForGpu) await this.raceLost(this.device.queue.onSubmittedWorkDone());
    // Collect every outstanding check before throwing, so one failure does not leak into the next sync.
    const compile = await this.raceLost(this.pipelines.check().then(() => null, (e: GpuError) => e));
    const errors = await this.raceLost(Promise.all(this.pendingErrors.splice(0)));
    const first = compile ?? errors.find((e) => e !== null);
    if (first) throw first;
    if (this.uncaptured) {
      const e = this.uncaptured;
      this.uncaptured = null;
      throw e;
    }
  }

  /** Per-op GPU times (ms) recorded since the last call; empty when timing is off. */
  async takeTimings(): Promise<OpTiming[]> {
    if (!this.querySet || !this.resolveBuf || this.queryOps.length === 0) return [];
    const n = this.queryOps.length;
    const enc = this.enc();
    enc.resolveQuerySet(this.querySet, 0, 2 * n, this.resolveBuf, 0);
    const staging = this.pool.acquire(n * 16, READBACK(), 'timestamps');
    enc.copyBufferToBuffer(this.resolveBuf, 0, staging, 0, n * 16);
    this.flush();
    await this.raceLost(staging.mapAsync(GPUMapMode.READ));
    const ts = new BigUint64Array(staging.getMappedRange().slice(0));
    staging.unmap();
    this.pool.release(staging);
    const ops = this.queryOps.splice(0);
    this.timingsOut = ops.map((op, i) => ({ op, ms: Number(ts[2 * i + 1] - ts[2 * i]) / 1e6 }));
    return this.timingsOut;
  }

  destroy(): void {
    this.pool.trim();
    for (const u of this.uniforms.values()) u.destroy();
    this.uniforms.clear();
    this.querySet?.destroy();
    this.resolveBuf?.destroy();
  }

  // ---- internals -------------------------------------------------------------------------

  private enc(): GPUCommandEncoder {
    if (this.ctx.lostError) throw this.ctx.lostError;
    this.encoder ??= this.device.createCommandEncoder({ label: 'tabforge' });
    return this.encoder;
  }

  /** Uniform buffers are immutable and keyed by content: a training step's parameters repeat exactly. */
  private uniformFor(op: string, params: ArrayBuffer | ArrayBufferView): GPUBuffer {
    const bytes = params instanceof ArrayBuffer ? new Uint8Array(params) : new Uint8Array(params.buffer, params.byteOffset, params.byteLength);
    let key = `${bytes.length}:`;
    for (let i = 0; i < bytes.length; i += 4) key += `${bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24)},`;
    let buf = this.uniforms.get(key);
    if (!buf) {
      const size = Math.max(16, Math.ceil(bytes.length / 16) * 16);
      buf = this.device.createBuffer({ size, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST, label: `${op}:params`, mappedAtCreation: true });
      new Uint8Array(buf.getMappedRange()).set(bytes);
      buf.unmap();
      this.uniforms.set(key, buf);
    }
    return buf;
  }

  private raceLost<T>(p: Promise<T>): Promise<T> {
    if (this.ctx.lostError) return Promise.reject(this.ctx.lostError);
    return Promise.race([p, this.ctx.lost.then((e) => Promise.reject(e))]);
  }
}
