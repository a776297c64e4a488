// Node back-end: a fresh sandbox process for every run (nodeChild.ts, nodeChildSource.ts), started
// ahead of time so the run does not wait for it. Why processes and not worker_threads with
// resourceLimits: in Node 20 a worker that hits its heap limit inside some built-ins (`a.push(i)` in
// a loop, `new Array(1e8).fill(0)`) aborts the WHOLE process, taking the trainer with it; a child
// process dies alone. Why a fresh one per run: a run that reached the process's own realm could
// patch it for every later run (a patched reporter, a timer left on its event loop); no check
// run inside that realm can prove it was not touched, and a new process costs ~60–90 ms of CPU,
// paid while the previous run is still going (measured: README, "Choices worth knowing").
import { cpus } from 'node:os';
import { RunCollector, MAX_RESULT_CHARS } from './grade';
import { HARNESS_NAME, checkEntryName, exporterSource, type HarnessConfig } from './harnessSource';
import { SandboxChild, type ChildSpec } from './nodeChild';
import type { NodeChildJob } from './nodeChildSource';
import { DEFAULT_SANDBOX_LIMITS, type SandboxLimits, type SandboxResult, type SandboxTest } from './types';

/** Pool settings. */
export interface NodeSandboxOptions {
  /** Runs at once, and processes kept started ahead (default: 2, or fewer CPUs). */
  size: number;
  /** Program text of the sandbox process (tests only: a hostile process proves the host-side limits). */
  program?: string;
  /** Use the in-process RSS watchdog even where the host can read /proc (tests of the fallback). */
  watchdog?: boolean;
}

/** A pool of one-run sandbox processes; most code uses the shared one through runInNodeSandbox. */
export class NodeSandboxPool {
  private readonly options: NodeSandboxOptions;
  private readonly spares: SandboxChild[] = [];
  private readonly running = new Set<SandboxChild>();
  private readonly waiting: (() => void)[] = [];
  private active = 0;

  constructor(options: Partial<NodeSandboxOptions> = {}) {
    this.options = { size: Math.max(1, Math.min(2, cpus().length)), ...options };
  }

  /** Runs `code` against `tests`; never rejects because of the code (failures are in the result). */
  async run(code: string, tests: SandboxTest[], limits: Partial<SandboxLimits> = {}): Promise<SandboxResult> {
    const lim: SandboxLimits = { ...DEFAULT_SANDBOX_LIMITS, ...limits };
    const entries = [...new Set(tests.map((t) => t.entry))];
    entries.forEach(checkEntryName);
    while (this.active >= this.options.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
    // Sandbox processes and their pipes are unref'd (idle ones must not keep the host alive); a
    // host awaiting a run must stay alive, even while the process it waits for is still starting.
    const keepAlive = setInterval(() => undefined, 1 << 30);
    const child = this.take(lim.memoryMb);
    this.running.add(child);
    this.refill(lim.memoryMb);
    try {
      try {
        await child.ready;
      } catch (e) {
        return new RunCollector(tests, lim, 'node', Date.now()).finish({ kind: 'crashed', error: e instanceof Error ? e.message : String(e) });
      }
      return await child.run(jobFor(code, entries, tests, lim), tests, lim);
    } finally {
      clearInterval(keepAlive);
      child.kill();
      this.running.delete(child);
      this.active--;
      this.waiting.shift()?.();
    }
  }

  /** Kills every sandbox process, started-ahead ones included; a later run starts new ones. */
  close(): void {
    for (const c of this.spares.splice(0)) c.kill();
    for (const c of this.running) c.kill();
  }

  private spec(memoryMb: number): ChildSpec {
    return { memoryMb, program: this.options.program, watchdog: this.options.watchdog };
  }

  /** A started-ahead process with this memory limit, or a new one. */
  private take(memoryMb: number): SandboxChild {
    for (;;) {
      const i = this.spares.findIndex((c) => c.memoryMb === memoryMb);
      if (i === -1) return new SandboxChild(this.spec(memoryMb));
      const [child] = this.spares.splice(i, 1);
      if (child.alive) return child;
    }
  }

  /** Starts processes ahead for the next runs; spares for another memory limit make room. */
  private refill(memoryMb: number): void {
    for (const c of this.spares.filter((s) => s.memoryMb !== memoryMb || !s.alive)) {
      c.kill();
      this.spares.splice(this.spares.indexOf(c), 1);
    }
    while (this.spares.length < this.options.size) this.spares.push(new SandboxChild(this.spec(memoryMb)));
  }
}

function jobFor(code: string, entries: string[], tests: SandboxTest[], lim: SandboxLimits): NodeChildJob {
  const config: HarnessConfig = {
    name: HARNESS_NAME,
    maxOutputChars: lim.maxOutputChars,
    maxResultChars: MAX_RESULT_CHARS,
    entries,
    calls: tests.map((t) => ({ e: t.entry, a: t.args })),
  };
  return {
    code: code + exporterSource(HARNESS_NAME, entries),
    userLines: code.split('\n').length,
    harnessConfig: JSON.stringify(config),
    timeoutMs: lim.timeoutMs,
  };
}

let sharedPool: NodeSandboxPool | undefined;

/** Runs code in the shared Node sandbox pool (created on first use). */
export function runInNodeSandbox(code: string, tests: SandboxTest[], limits?: Partial<SandboxLimits>): Promise<SandboxResult> {
  sharedPool ??= new NodeSandboxPool();
  return sharedPool.run(code, tests, limits);
}

/** Kills the shared pool's processes (tests call this in afterAll; a later run starts new ones). */
export function closeNodeSandbox(): void {
  sharedPool?.close();
  sharedPool = undefined;
}
