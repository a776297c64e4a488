// "Auto" adapter choice by measurement: a browser may offer two different WebGPU adapters (here:
// SwiftShader at the core feature level and llvmpipe through ANGLE at the compatibility level, the
// latter several times faster on these CPUs). The probe times the same matmul on each and picks the
// faster one; with a single adapter (both levels give the same one) nothing is timed.
import { acquireDevice, type GpuContext } from '../gpu/device';
import { GpuRuntime } from '../gpu/runtime';
import { matmulForward } from '../ops/matmul';

export type AdapterLevel = 'core' | 'compatibility';

export interface ProbedAdapter {
  level: AdapterLevel;
  /** "google swiftshader", or a name for an adapter that gives none. */
  name: string;
  /** Milliseconds per 256³ matmul after compilation (null: this adapter failed). */
  msPerMatmul: number | null;
  error?: string;
}

export interface ProbeResult {
  choice: AdapterLevel;
  adapters: ProbedAdapter[];
  /** One sentence for the page ("llvmpipe-class compatibility adapter: 9 ms vs 61 ms per matmul"). */
  reason: string;
  /** Identifies this browser's adapter pair: a cached choice is reused while it matches. */
  signature: string;
}

const N = 256; // matmul size: ~34 MFLOP, tens of milliseconds on a CPU adapter
const REPS = 3;

/** A readable name even when the browser reports nothing (Chromium's OpenGL ES adapter). */
export function adapterName(info: { vendor: string; architecture: string; device?: string; description?: string }, level: AdapterLevel): string {
  const parts = [info.vendor, info.architecture, info.device, info.description].filter((s) => s && s.trim() !== '');
  if (parts.length) return [...new Set(parts)].join(' ');
  return level === 'compatibility' ? 'OpenGL ES adapter (ANGLE; the browser gives no vendor name)' : 'unnamed adapter (the browser gives no vendor name)';
}

interface Candidate {
  level: AdapterLevel;
  adapter: GPUAdapter;
  id: string;
}

/** The adapters the two feature levels give, without duplicates (the same adapter twice counts once). */
async function candidates(gpu: GPU): Promise<Candidate[]> {
  const out: Candidate[] = [];
  for (const level of ['core', 'compatibility'] as const) {
    const adapter = await gpu.requestAdapter({ featureLevel: level } as GPURequestAdapterOptions).catch(() => null);
    if (!adapter) continue;
    const core = adapter.features.has('core-features-and-limits' as GPUFeatureName);
    const i = adapter.info;
    const id = `${core ? 'core' : 'compat'}:${i.vendor}/${i.architecture}/${i.device}/${i.description}`;
    if (!out.some((c) => c.id === id)) out.push({ level, adapter, id });
  }
  return out;
}

/** The identity of this browser's adapter pair (cheap: no device is created). */
export async function adapterSignature(gpu: GPU = navigator.gpu): Promise<string> {
  return (await candidates(gpu)).map((c) => c.id).join(' | ');
}

async function timeMatmul(ctx: GpuContext): Promise<number> {
  const rt = new GpuRuntime(ctx, { timing: false });
  try {
    const a = rt.upload(new Float32Array(N * N).map((_, i) => (i % 7) / 7), [N, N]);
    const b = rt.upload(new Float32Array(N * N).map((_, i) => (i % 5) / 5), [N, N]);
    const spec = { batch: 1, M: N, K: N, N, transA: false, transB: false };
    rt.release(matmulForward(rt, a, b, spec)); // compiles the pipeline: not timed
    await rt.sync();
    const t0 = performance.now();
    for (let r = 0; r < REPS; r++) rt.release(matmulForward(rt, a, b, spec));
    await rt.sync();
    return (performance.now() - t0) / REPS;
  } finally {
    rt.destroy();
  }
}

/** Times each distinct adapter and picks the faster (core when there is only one, or on a tie). */
export async function probeAdapters(gpu: GPU = navigator.gpu): Promise<ProbeResult> {
  const found = await candidates(gpu);
  const signature = found.map((c) => c.id).join(' | ');
  if (found.length === 0) throw new Error('no WebGPU adapter at either feature level');
  if (found.length === 1) {
    const c = found[0];
    const name = adapterName(c.adapter.info, c.level);
    return { choice: c.level, adapters: [{ level: c.level, name, msPerMatmul: null }], reason: `one adapter here (${name}): nothing to choose`, signature };
  }
  const adapters: ProbedAdapter[] = [];
  for (const c of found) {
    const name = adapterName(c.adapter.info, c.level);
    try {
      const ctx = await acquireDevice({ gpu, featureLevel: c.level });
      try {
        adapters.push({ level: c.level, name, msPerMatmul: await timeMatmul(ctx) });
      } finally {
        ctx.device.destroy();
      }
    } catch (e) {
      adapters.push({ level: c.level, name, msPerMatmul: null, error: e instanceof Error ? e.message : String(e) });
    }
  }
  const timed = adapters.filter((a) => a.msPerMatmul !== null).sort((x, y) => x.msPerMatmul! - y.msPerMatmul!);
  if (timed.length === 0) throw new Error(`every adapter failed the probe: ${adapters.map((a) => `${a.name}: ${a.error}`).join('; ')}`);
  const best = timed[0];
  const others = adapters.filter((a) => a !== best).map((a) => (a.msPerMatmul === null ? `${a.name} failed` : `${a.name} ${a.msPerMatmul.toFixed(0)} ms`)).join(', ');
  return { choice: best.level, adapters, reason: `${best.name} is the faster adapter here: ${best.msPerMatmul!.toFixed(0)} ms per ${N}³ matmul vs ${others}`, signature };
}
