// Bench reports: the text table the runner prints and the JSON file it writes. DOM-free (Node and
// page both use it).
//
// JSON file shape (always the same top level):
//   { "adapter": {...}, "results": [{ "name", "unit", "value", "peers": {"tfjs-webgpu": N|null,
//     "ort-webgpu": N|null}, "peerErrors"?: {peer: reason}, "error"?, "samples", "note"?, "adapter": kind }],
//     "meta": {...} }
// With one adapter `adapter` describes it. With several (--adapter both) `adapter` is
// { "kind": "both", "adapters": [...] } and `results` holds one entry per row per adapter, told
// apart by each entry's `adapter` field (same row names on every adapter, so runs compare by name).
import { type BenchResult, PEER_NAMES } from './registry';

export interface AdapterSummary {
  /** 'swiftshader' | 'llvmpipe' | 'other' (real GPUs). */
  kind: string;
  /** describeContext(): name, vendor/architecture, feature level, optional features. */
  description: string;
  featureLevel: 'core' | 'compatibility';
  vendor: string;
  architecture: string;
}

/** What one page run returns: one adapter, its rows. */
export interface BenchReport {
  adapter: AdapterSummary;
  results: BenchResult[];
}

export interface BenchFileResult extends BenchResult {
  /** Adapter kind this row ran on. */
  adapter: string;
}

export interface BenchFile {
  adapter: AdapterSummary | { kind: 'both'; adapters: AdapterSummary[] };
  results: BenchFileResult[];
  meta: Record<string, unknown>;
}

/** Units where a smaller value is better (times); every other unit is a rate. */
export const LOWER_IS_BETTER = new Set(['ms', 's']);

/**
 * Speed of ours relative to tfjs-webgpu: > 1 means ours is faster, whatever the unit
 * (ours/tfjs for rates such as GFLOP/s, tfjs/ours for times in ms); null when either side is missing.
 */
export function ratioVsTfjs(r: BenchResult): number | null {
  const t = r.peers['tfjs-webgpu'];
  if (r.value === null || t === null || !(t > 0) || !(r.value > 0)) return null;
  return LOWER_IS_BETTER.has(r.unit) ? t / r.value : r.value / t;
}

export function toBenchFile(reports: BenchReport[], meta: Record<string, unknown> = {}): BenchFile {
  if (reports.length === 0) throw new Error('toBenchFile: no adapter reports (did every browser run fail?)');
  const adapter = reports.length === 1 ? reports[0].adapter : { kind: 'both' as const, adapters: reports.map((r) => r.adapter) };
  const results = reports.flatMap((rep) => rep.results.map((r) => ({ ...r, adapter: rep.adapter.kind })));
  return { adapter, results, meta };
}

const fmt = (v: number | null) => (v === null ? 'null' : v >= 100 ? v.toFixed(1) : v >= 1 ? v.toFixed(2) : v.toFixed(3));

/** Fixed-width table of one adapter's rows, then the reasons behind every null (each reason once). */
export function formatTable(report: BenchReport): string {
  const head = ['name', 'unit', 'ours', ...PEER_NAMES, 'speed vs tfjs'];
  const rows = report.results.map((r) => {
    const ratio = ratioVsTfjs(r);
    return [r.name, r.unit, fmt(r.value), ...PEER_NAMES.map((p) => fmt(r.peers[p])), ratio === null ? '-' : `${ratio.toFixed(2)}×`];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ').trimEnd();
  const out = [`adapter: ${report.adapter.kind} — ${report.adapter.description}`, line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)];
  // Null reasons, grouped so an adapter-wide failure (a peer that cannot start) prints once.
  const reasons = new Map<string, string[]>();
  for (const r of report.results) {
    if (r.error) reasons.set(`ours: ${r.error}`, [...(reasons.get(`ours: ${r.error}`) ?? []), r.name]);
    for (const [p, why] of Object.entries(r.peerErrors ?? {})) {
      const key = `${p}: ${why}`;
      reasons.set(key, [...(reasons.get(key) ?? []), r.name]);
    }
  }
  for (const [why, names] of reasons) {
    out.push(`  null — ${why} (${names.length === report.results.length ? 'all rows' : names.join(', ')})`);
  }
  for (const r of report.results) if (r.note) out.push(`  note — ${r.name}: ${r.note}`);
  return out.join('\n');
}
