// A low-communication mode for slow links (DiLoCo, Douillard et al. 2023, arXiv:2311.08105): each
// rank takes H local AdamW steps on its own rows, then all ranks exchange their parameter deltas
// Δ_r = θ_outer − θ_r once, average them in rank order and take one outer step with Nesterov
// momentum (v ← μ·v + Δ̄; θ_outer ← θ_outer − η·(Δ̄ + μ·v)); every rank then continues from the same
// θ_outer (its inner AdamW state stays its own). Deltas may travel int8-quantised per block of 256
// values (one float32 scale each: ≈ 1.016 bytes per parameter instead of 4).
// Bytes per optimizer step and rank: 4·P / H (float32 deltas) or ≈ 1.016·P / H (int8), against
// 4·P for plain data parallel (dataParallel.ts).
import type { GpuRuntime } from '../gpu/runtime';
import type { GpuWeights } from '../model/weights';
import type { AdamWState } from '../train/optimizerState';
import type { SftLoopState } from '../train/sft/sft';
import type { Collective } from './collective';
import { finiteFloats, floatBytes } from './protocol';

export interface DilocoConfig {
  /** H: local steps between outer steps. */
  innerSteps: number;
  /** η: outer learning rate (the paper: 0.7). */
  outerLr: number;
  /** μ: outer Nesterov momentum (the paper: 0.9). */
  outerMomentum: number;
  /** How deltas travel. */
  quantize: 'none' | 'int8';
}

export const DEFAULT_DILOCO: DilocoConfig = { innerSteps: 8, outerLr: 0.7, outerMomentum: 0.9, quantize: 'none' };

export const INT8_BLOCK = 256;

/** int8 with one float32 scale per block of INT8_BLOCK values: [scales (float32 × blocks)][values (int8 × n)]. */
export function quantizeInt8(x: Float32Array): Uint8Array {
  const blocks = Math.ceil(x.length / INT8_BLOCK);
  const out = new Uint8Array(4 * blocks + x.length);
  const scales = new Float32Array(out.buffer, 0, blocks);
  const q = new Int8Array(out.buffer, 4 * blocks, x.length);
  for (let b = 0; b < blocks; b++) {
    const lo = b * INT8_BLOCK;
    const hi = Math.min(lo + INT8_BLOCK, x.length);
    let max = 0;
    for (let i = lo; i < hi; i++) max = Math.max(max, Math.abs(x[i]));
    const scale = max / 127;
    scales[b] = scale;
    for (let i = lo; i < hi; i++) q[i] = scale > 0 ? Math.round(x[i] / scale) : 0;
  }
  return out;
}

/** The values of quantizeInt8's bytes (n of them); throws on a payload of another size or a bad scale. */
export function dequantizeInt8(bytes: Uint8Array, n: number): Float32Array {
  const blocks = Math.ceil(n / INT8_BLOCK);
  if (bytes.byteLength !== 4 * blocks + n) throw new Error(`int8 deltas: ${bytes.byteLength} bytes for ${n} values (expected ${4 * blocks + n})`);
  const aligned = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
  const scales = finiteFloats(aligned.subarray(0, 4 * blocks), 'int8 delta scales');
  const q = new Int8Array(aligned.buffer, aligned.byteOffset + 4 * blocks, n);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = q[i] * scales[Math.floor(i / INT8_BLOCK)];
  return out;
}

export interface DilocoStats {
  outerSteps: number;
  /** Delta bytes this rank sent (payloads). */
  bytesSent: number;
}

/** The outer loop's state on one rank: θ_outer, the momentum, and the parameter order. */
export class DilocoOuter {
  private readonly names: string[];
  private readonly theta: Float32Array;
  private readonly momentum: Float32Array;
  readonly stats: DilocoStats = { outerSteps: 0, bytesSent: 0 };

  constructor(readonly cfg: DilocoConfig, start: Map<string, Float32Array>) {
    if (!Number.isInteger(cfg.innerSteps) || cfg.innerSteps < 1) throw new Error(`DiLoCo: innerSteps = ${cfg.innerSteps} must be an integer ≥ 1`);
    this.names = [...start.keys()];
    this.theta = pack(start, this.names);
    this.momentum = new Float32Array(this.theta.length);
  }

  /** One outer step: exchange Δ_r, average in rank order, Nesterov update, write θ_outer into w. */
  async sync(rt: GpuRuntime, w: GpuWeights, collective: Collective): Promise<void> {
    const local = pack(await w.download(), this.names);
    const delta = new Float32Array(local.length);
    for (let i = 0; i < delta.length; i++) delta[i] = this.theta[i] - local[i];
    const bytes = this.cfg.quantize === 'int8' ? quantizeInt8(delta) : floatBytes(delta);
    const all = await collective.allGather(bytes, { n: delta.length });
    const mean = new Float32Array(delta.length);
    for (const [rank, c] of all.entries()) {
      const d = this.cfg.quantize === 'int8' ? dequantizeInt8(c.bytes, delta.length) : finiteFloats(c.bytes, `DiLoCo: rank ${rank}'s delta`);
      if (d.length !== delta.length) throw new Error(`DiLoCo: rank ${rank} sent ${d.length} delta values, expected ${delta.length}`);
      for (let i = 0; i < d.length; i++) mean[i] += d[i] / all.length;
    }
    const { outerLr: lr, outerMomentum: mu } = this.cfg;
    for (let i = 0; i < mean.length; i++) {
      this.momentum[i] = mu * this.momentum[i] + mean[i];
      this.theta[i] -= lr * (mean[i] + mu * this.momentum[i]);
    }
    let at = 0;
    for (const name of this.names) {
      const len = w.get(name).size;
      rt.write(w.get(name), this.theta.subarray(at, at + len));
      at += len;
    }
    this.stats.outerSteps++;
    this.stats.bytesSent += bytes.byteLength;
  }

  /** trainSft's afterStep: an outer step after every H inner steps. */
  afterStep(rt: GpuRuntime, collective: Collective): (state: SftLoopState, opt: AdamWState, w: GpuWeights) => Promise<void> {
    return async (state, _opt, w) => {
      if (state.step % this.cfg.innerSteps === 0) await this.sync(rt, w, collective);
    };
  }
}

function pack(values: Map<string, Float32Array>, names: string[]): Float32Array {
  const out = new Float32Array(names.reduce((a, n) => a + values.get(n)!.length, 0));
  let at = 0;
  for (const n of names) {
    out.set(values.get(n)!, at);
    at += values.get(n)!.length;
  }
  return out;
}

/** Delta/gradient bytes one rank sends per optimizer step in each mode, for P parameters. */
export function bytesPerStep(parameters: number, mode: 'data-parallel' | 'diloco' | 'diloco-int8', innerSteps = 1): number {
  if (mode === 'data-parallel') return 4 * parameters;
  if (mode === 'diloco') return (4 * parameters) / innerSteps;
  return (4 * Math.ceil(parameters / INT8_BLOCK) + parameters) / innerSteps;
}
