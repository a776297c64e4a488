// Kernel self-check: runs every registered GPU op on fresh seeded inputs and compares it with the
// float64 reference. Runs wherever a GpuRuntime exists: Node tests, the page, a Worker (the demo
// and the Playwright smoke tests on both browser adapters use it).
import type { GpuRuntime } from '../gpu/runtime';
import { Rng } from '../util/rng';

export interface KernelCheck {
  /** e.g. 'matmul forward 37x53x29 transB'. */
  name: string;
  /** Largest acceptable relative error (see relativeError in src/reference/ops/finiteDiff.ts). */
  tol: number;
  /** Runs the op and its reference; returns the worst relative error over the compared outputs. */
  run(rt: GpuRuntime, rng: Rng): Promise<number>;
}

export interface CheckResult {
  name: string;
  ok: boolean;
  relErr: number;
  tol: number;
  ms: number;
  error?: string;
}

const registry: KernelCheck[] = [];

export function registerChecks(...checks: KernelCheck[]): void {
  registry.push(...checks);
}

export function registeredChecks(): readonly KernelCheck[] {
  return registry;
}

/** Runs the checks (optionally those whose name contains `filter`), one seed stream per check. */
export async function runSelfCheck(
  rt: GpuRuntime,
  opts: { seed?: number; filter?: string; onResult?: (r: CheckResult) => void } = {},
): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  const root = new Rng(opts.seed ?? 1234);
  for (const [i, check] of registry.entries()) {
    if (opts.filter && !check.name.includes(opts.filter)) continue;
    const t0 = performance.now();
    let r: CheckResult;
    try {
      const relErr = await check.run(rt, root.fork(i));
      r = { name: check.name, ok: Number.isFinite(relErr) && relErr <= check.tol, relErr, tol: check.tol, ms: performance.now() - t0 };
    } catch (e) {
      r = { name: check.name, ok: false, relErr: Number.NaN, tol: check.tol, ms: performance.now() - t0, error: e instanceof Error ? e.message : String(e) };
    }
    results.push(r);
    opts.onResult?.(r);
  }
  return results;
}
