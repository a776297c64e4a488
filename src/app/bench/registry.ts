// The benchmark registry: each row is one measurement of ours, optionally with the same measurement
// by peer libraries on the same adapter. Rows register themselves (matmulBench.ts; attention and
// AdamW rows plug in the same way) and runBenches times them side by side.
//
// Timing method: every participant (ours and each peer) is called once to warm up (compile,
// allocate), then the repeats run round-robin (ours, tfjs, ort, ours, …) so a busy machine slows
// all of them alike; the reported value is the median sample. A participant that throws is
// reported as null with its reason, never silently dropped. Rows that time a whole workload with
// their own warm-up (GRPO throughput: minutes per sample) set `once` and are called exactly once.
import type { GpuRuntime } from '../../gpu/runtime';

export const PEER_NAMES = ['tfjs-webgpu', 'ort-webgpu'] as const;
export type PeerName = (typeof PEER_NAMES)[number];

/** What peer samplers receive: the peer libraries, initialised on the page's adapter (or why not). */
export interface PeerContext {
  /** Set when the library could not start on this adapter; its samplers then fail with this reason. */
  unavailable: Partial<Record<PeerName, string>>;
  /** Library handles, typed by the peers module (kept opaque here so the registry stays light). */
  libs: Partial<Record<PeerName, unknown>>;
}

export interface BenchCase {
  /** Row name, e.g. 'matmul 1024x1024x1024' (M×K×N for matmuls). */
  name: string;
  /** Unit of every sample, e.g. 'GFLOP/s' (higher is better) or 'ms' (lower is better). */
  unit: string;
  /** One timed sample of ours, in `unit`. The first call is the warm-up (except for `once` rows). */
  run(rt: GpuRuntime, opts: CaseOptions): Promise<number>;
  /** The same measurement by peers on the same adapter, one sample per call. */
  peers?: Partial<Record<PeerName, (peers: PeerContext) => Promise<number>>>;
  /** Frees what run() and the peers allocated; called once after the last sample. */
  dispose?(rt: GpuRuntime): void | Promise<void>;
  /** run() warms up and times a fixed workload itself: call it exactly once (no warm-up call, no repeats). */
  once?: boolean;
  /** A line for the report after the samples (settings, derived numbers, why a value is what it is). */
  note?(): string | undefined;
}

/** What a row's run() is told about the run. */
export interface CaseOptions {
  /** Smoke run: rows with a fixed workload may shrink it. */
  quick: boolean;
}

export interface BenchResult {
  name: string;
  unit: string;
  /** Median of ours, or null when ours failed (see error). */
  value: number | null;
  error?: string;
  /** Median per peer; null when the peer failed or has no version of this row (see peerErrors). */
  peers: Record<PeerName, number | null>;
  peerErrors?: Partial<Record<PeerName, string>>;
  /** Timed samples per participant (after the warm-up). */
  samples: number;
  /** The row's own explanation (BenchCase.note), when it has one. */
  note?: string;
}

export interface RunOptions {
  /** Fewer repeats (smoke runs, CI). */
  quick?: boolean;
  /** Only rows whose name contains this. */
  filter?: string;
  /** Progress lines (the page logs them; the Node runner echoes the page console). */
  onProgress?: (line: string) => void;
}

const registry: BenchCase[] = [];

export function registerBench(...cases: BenchCase[]): void {
  for (const c of cases) {
    if (registry.some((r) => r.name === c.name)) throw new Error(`registerBench: a row named '${c.name}' is already registered; bench names must be unique`);
    registry.push(c);
  }
}

export function registeredBenches(): readonly BenchCase[] {
  return registry;
}

/** Repeats per participant: as many as fit in the budget after the slowest warm-up, within bounds. */
export function repeatsFor(slowestWarmupMs: number, quick: boolean): number {
  const [budgetMs, min, max] = quick ? [1500, 1, 3] : [8000, 3, 7];
  return Math.max(min, Math.min(max, Math.floor(budgetMs / Math.max(slowestWarmupMs, 1e-3))));
}

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

interface Participant {
  who: 'ours' | PeerName;
  sample: () => Promise<number>;
  samples: number[];
  error?: string;
}

/** Runs one row: warm-up, then round-robin repeats; returns medians with failures as null + reason. */
export async function runBench(rt: GpuRuntime, c: BenchCase, peers: PeerContext, opts: RunOptions = {}): Promise<BenchResult> {
  const parts: Participant[] = [{ who: 'ours', sample: () => c.run(rt, { quick: opts.quick ?? false }), samples: [] }];
  const peerErrors: Partial<Record<PeerName, string>> = {};
  for (const p of PEER_NAMES) {
    const fn = c.peers?.[p];
    if (!fn) peerErrors[p] = 'no peer version of this benchmark';
    else if (peers.unavailable[p]) peerErrors[p] = peers.unavailable[p];
    else parts.push({ who: p, sample: () => fn(peers), samples: [] });
  }
  let slowest = 0;
  for (const part of c.once ? [] : parts) {
    const t0 = performance.now();
    try {
      await part.sample();
    } catch (e) {
      part.error = `warm-up failed: ${message(e)}`;
    }
    slowest = Math.max(slowest, performance.now() - t0);
  }
  const reps = c.once ? 1 : repeatsFor(slowest, opts.quick ?? false);
  for (let i = 0; i < reps; i++) {
    for (const part of parts) {
      if (part.error) continue;
      try {
        part.samples.push(await part.sample());
      } catch (e) {
        part.error = message(e);
      }
    }
  }
  try {
    await c.dispose?.(rt);
  } catch (e) {
    opts.onProgress?.(`${c.name}: dispose failed: ${message(e)}`);
  }
  const valueOf = (p: Participant) => (p.error || p.samples.length === 0 ? null : median(p.samples));
  const ours = parts[0];
  const result: BenchResult = {
    name: c.name,
    unit: c.unit,
    value: valueOf(ours),
    peers: Object.fromEntries(PEER_NAMES.map((p) => [p, null])) as Record<PeerName, number | null>,
    samples: reps,
  };
  if (ours.error) result.error = ours.error;
  try {
    const note = c.note?.();
    if (note) result.note = note;
  } catch (e) {
    result.note = `note failed: ${message(e)}`;
  }
  for (const part of parts.slice(1)) {
    const who = part.who as PeerName;
    result.peers[who] = valueOf(part);
    if (part.error) peerErrors[who] = part.error;
  }
  if (Object.keys(peerErrors).length) result.peerErrors = peerErrors;
  return result;
}

/** Runs every registered row (or those matching opts.filter) in registration order. */
export async function runBenches(rt: GpuRuntime, peers: PeerContext, opts: RunOptions = {}): Promise<BenchResult[]> {
  const out: BenchResult[] = [];
  for (const c of registry) {
    if (opts.filter && !c.name.includes(opts.filter)) continue;
    opts.onProgress?.(`${c.name} …`);
    const t0 = performance.now();
    const r = await runBench(rt, c, peers, opts);
    const peerText = PEER_NAMES.map((p) => `${p} ${r.peers[p]?.toFixed(3) ?? 'null'}`).join(', ');
    opts.onProgress?.(`${c.name}: ours ${r.value?.toFixed(3) ?? `null (${r.error})`} ${c.unit}; ${peerText} (${r.samples} repeats, ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
    out.push(r);
  }
  return out;
}
