// Recycles GPU buffers by exact byte size and usage, so that a training step allocates nothing
// after the first one (its shapes repeat). Buffers are handed out whole; sizes are padded to 16 B.

const ALIGN = 16;

export interface PoolStats {
  /** createBuffer calls made since the pool started (or since resetCounters). */
  created: number;
  /** Requests served from the free lists. */
  reused: number;
  /** Buffers handed out and not yet released. */
  live: number;
  /** Bytes held by the pool (live + free). */
  heldBytes: number;
  /** The most heldBytes has been since the pool started (or since resetPeak): peak GPU memory of pooled buffers. */
  peakBytes: number;
}

export class BufferPool {
  private free = new Map<string, GPUBuffer[]>();
  private sizes = new WeakMap<GPUBuffer, { key: string; bytes: number }>();
  private stats: PoolStats = { created: 0, reused: 0, live: 0, heldBytes: 0, peakBytes: 0 };

  constructor(private readonly device: GPUDevice) {}

  static paddedSize(bytes: number): number {
    return Math.max(ALIGN, Math.ceil(bytes / ALIGN) * ALIGN);
  }

  acquire(bytes: number, usage: GPUBufferUsageFlags, label: string): GPUBuffer {
    const size = BufferPool.paddedSize(bytes);
    const key = `${size}:${usage}`;
    const list = this.free.get(key);
    this.stats.live++;
    if (list && list.length > 0) {
      this.stats.reused++;
      const buf = list.pop()!;
      buf.label = label;
      return buf;
    }
    const buf = this.device.createBuffer({ size, usage, label });
    this.sizes.set(buf, { key, bytes: size });
    this.stats.created++;
    this.stats.heldBytes += size;
    this.stats.peakBytes = Math.max(this.stats.peakBytes, this.stats.heldBytes);
    return buf;
  }

  /** Returns a buffer for reuse. Safe while GPU work using it is queued: reuse only enqueues after it. */
  release(buf: GPUBuffer): void {
    const meta = this.sizes.get(buf);
    if (!meta) throw new Error(`BufferPool.release: buffer '${buf.label}' was not allocated by this pool`);
    let list = this.free.get(meta.key);
    if (!list) this.free.set(meta.key, (list = []));
    if (list.includes(buf)) throw new Error(`BufferPool.release: buffer '${buf.label}' released twice`);
    list.push(buf);
    this.stats.live--;
  }

  getStats(): PoolStats {
    return { ...this.stats };
  }

  resetCounters(): void {
    this.stats.created = 0;
    this.stats.reused = 0;
  }

  /** Starts peak tracking afresh from what is held now. */
  resetPeak(): void {
    this.stats.peakBytes = this.stats.heldBytes;
  }

  /** Destroys every free buffer (live ones stay with their owners). */
  trim(): void {
    for (const list of this.free.values()) {
      for (const b of list) {
        this.stats.heldBytes -= this.sizes.get(b)?.bytes ?? 0;
        b.destroy();
      }
    }
    this.free.clear();
  }
}
