// Seeded pseudo-random numbers. Every run, test and task generator takes a seed; the same seed
// gives the same stream on every machine (pure 32-bit integer arithmetic, no Math.random).

/** SplitMix32-style generator; period 2^32, good enough for tests, sampling and task generation. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    // `^` yields a signed int32: keep the state a u32 from the start (a checkpoint stores it as one)
    this.state = ((seed >>> 0) ^ 0x9e3779b9) >>> 0;
  }

  /** The position in the stream (u32), for checkpoints: Rng.fromState(r.saveState()) continues r's stream exactly. */
  saveState(): number {
    return this.state;
  }

  static fromState(state: number): Rng {
    const r = new Rng(0);
    r.state = state >>> 0;
    return r;
  }

  /** Uniform 32-bit unsigned integer. */
  nextU32(): number {
    this.state = (this.state + 0x9e3779b9) >>> 0;
    let z = this.state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.nextU32() / 4294967296;
  }

  /** Uniform in [lo, hi). */
  uniform(lo = 0, hi = 1): number {
    return lo + (hi - lo) * this.next();
  }

  /** Uniform integer in [lo, hi] inclusive. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  /** Standard normal (Box–Muller). */
  normal(mean = 0, std = 1): number {
    const u1 = Math.max(this.next(), 1e-12);
    const u2 = this.next();
    return mean + std * Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
  }

  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('Rng.pick: empty array');
    return items[Math.floor(this.next() * items.length)];
  }

  /** Fisher–Yates shuffle, returning a new array. */
  shuffle<T>(items: readonly T[]): T[] {
    const out = items.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  }

  /** An independent child stream (for per-task or per-worker seeds). */
  fork(salt: number): Rng {
    return new Rng((this.nextU32() ^ Math.imul(salt >>> 0, 0x27d4eb2d)) >>> 0);
  }
}

/** Float32Array of n values uniform in [lo, hi). */
export function randomUniform(rng: Rng, n: number, lo = -1, hi = 1): Float32Array {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = rng.uniform(lo, hi);
  return out;
}

/** Float32Array of n normal values. */
export function randomNormal(rng: Rng, n: number, std = 1): Float32Array {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = rng.normal(0, std);
  return out;
}
