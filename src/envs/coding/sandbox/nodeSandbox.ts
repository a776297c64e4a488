// Node back-end: a small pool of sandbox processes (see nodeChildSource.ts), each reused for many
// runs with a fresh vm context per run. Why processes and not worker_threads with resourceLimits:
// in Node 20 a worker that hits its heap limit inside some built-ins (`a.push(i)` in a loop,
// `new Array(1e8).fill(0)`, a growing Map) aborts the WHOLE process with "FATAL ERROR: … heap out of
// memory", taking the trainer with it; a child process dies alone and the host reports it.
// The host enforces the wall clock too: past timeoutMs + grace it SIGKILLs the process.
import { spawn, type ChildProcess } from 'node:child_process';
import { cpus } from 'node:os';
import { RunCollector, type RunEnding } from './grade';
import { HARNESS_NAME, checkEntryName, exporterSource, type HarnessConfig } from './harnessSource';
import { NODE_CHILD_SOURCE, type NodeChildJob, type NodeChildOptions } from './nodeChildSource';
import { DEFAULT_SANDBOX_LIMITS, type SandboxLimits, type SandboxResult, type SandboxTest } from './types';

const GRACE_MS = 1000; // host deadline = timeoutMs + this (the process enforces timeoutMs itself)
const START_TIMEOUT_MS = 15_000; // a sandbox process that is not ready by then counts as failed
const MAX_RESULT_CHARS = 2000; // rendered length cap of one returned value
const STDERR_TAIL_CHARS = 4096;

/** Pool settings. */
export interface NodeSandboxOptions {
  /** Processes running at once (default: 2, or fewer CPUs). */
  size: number;
  /** A process is replaced after this many runs, to bound any slow drift (default 200). */
  maxRunsPerProcess: number;
}

interface SandboxProcess {
  child: ChildProcess;
  memoryMb: number;
  ready: Promise<void>;
  runs: number;
  busy: boolean;
  exited: boolean;
  stderrTail: string;
}

function permissionFlags(): string[] {
  const allowed = process.allowedNodeEnvironmentFlags;
  if (allowed.has('--permission')) return ['--permission', '--allow-worker'];
  if (allowed.has('--experimental-permission')) return ['--experimental-permission', '--allow-worker'];
  return [];
}

function spawnSandboxProcess(memoryMb: number): SandboxProcess {
  const options: NodeChildOptions = { rssHeadroomMb: 2 * memoryMb + 64 };
  const args = [...permissionFlags(), '--no-warnings', `--max-old-space-size=${memoryMb}`, '-e', NODE_CHILD_SOURCE, JSON.stringify(options)];
  // No environment, no stdin/stdout: nothing to read even for code that escaped the vm context.
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], env: {}, windowsHide: true });
  const proc: SandboxProcess = { child, memoryMb, runs: 0, busy: false, exited: false, stderrTail: '', ready: Promise.resolve() };
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (d: string) => {
    proc.stderrTail = (proc.stderrTail + d).slice(-STDERR_TAIL_CHARS);
  });
  child.on('exit', () => {
    proc.exited = true;
  });
  child.on('error', () => {
    proc.exited = true;
  });
  // Idle sandbox processes must not keep the host's event loop (a test run, a CLI) alive.
  child.unref();
  (child.stderr as unknown as { unref?: () => void } | null)?.unref?.();
  (child.channel as unknown as { unref?: () => void } | null | undefined)?.unref?.();
  proc.ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the Node sandbox process did not start within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS);
    const onMessage = (m: unknown) => {
      if (m !== null && typeof m === 'object' && (m as { ready?: unknown }).ready === true) {
        clearTimeout(timer);
        child.off('message', onMessage);
        resolve();
      }
    };
    child.on('message', onMessage);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the Node sandbox process exited while starting (code ${code}, signal ${signal}): ${proc.stderrTail.trim().slice(-500)}`));
    });
  });
  proc.ready.catch(() => undefined); // a start failure is reported by the run that awaits it
  return proc;
}

function memoryEvidence(stderr: string): boolean {
  return /TABFORGE_SANDBOX_MEMORY_LIMIT|heap out of memory|Allocation failed|Reached heap limit/.test(stderr);
}

/** A pool of sandbox processes; most code uses the shared one through runInNodeSandbox. */
export class NodeSandboxPool {
  private readonly procs: SandboxProcess[] = [];
  private readonly waiting: (() => void)[] = [];
  private nextJobId = 1;
  private readonly options: NodeSandboxOptions;

  constructor(options: Partial<NodeSandboxOptions> = {}) {
    this.options = { size: Math.max(1, Math.min(2, cpus().length)), maxRunsPerProcess: 200, ...options };
  }

  /** Runs `code` against `tests`; never rejects because of the code (failures are in the result). */
  async run(code: string, tests: SandboxTest[], limits: Partial<SandboxLimits> = {}): Promise<SandboxResult> {
    const lim: SandboxLimits = { ...DEFAULT_SANDBOX_LIMITS, ...limits };
    const entries = [...new Set(tests.map((t) => t.entry))];
    entries.forEach(checkEntryName);
    const proc = await this.acquire(lim.memoryMb);
    try {
      await proc.ready;
    } catch (e) {
      this.discard(proc);
      const collector = new RunCollector(tests, lim, 'node', Date.now());
      return collector.finish({ kind: 'crashed', error: e instanceof Error ? e.message : String(e) });
    }
    try {
      return await this.runOn(proc, code, entries, tests, lim);
    } finally {
      this.release(proc);
    }
  }

  /** Kills every sandbox process (they are also killed when the host exits). */
  close(): void {
    for (const p of this.procs.splice(0)) p.child.kill('SIGKILL');
  }

  private runOn(proc: SandboxProcess, code: string, entries: string[], tests: SandboxTest[], lim: SandboxLimits): Promise<SandboxResult> {
    const config: HarnessConfig = {
      name: HARNESS_NAME,
      maxOutputChars: lim.maxOutputChars,
      maxResultChars: MAX_RESULT_CHARS,
      entries,
      calls: tests.map((t) => ({ e: t.entry, a: t.args })),
    };
    const job: NodeChildJob = {
      id: this.nextJobId++,
      code: code + exporterSource(HARNESS_NAME, entries),
      userLines: code.split('\n').length,
      harnessConfig: JSON.stringify(config),
      timeoutMs: lim.timeoutMs,
    };
    const collector = new RunCollector(tests, lim, 'node', Date.now());
    proc.runs++;
    return new Promise<SandboxResult>((resolve) => {
      let settled = false;
      const finish = (ending: RunEnding) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        proc.child.off('message', onMessage);
        proc.child.off('close', onClose);
        resolve(collector.finish(ending));
      };
      const onMessage = (msg: unknown) => {
        const { id, ms } = (msg ?? {}) as { id?: unknown; ms?: unknown };
        if (id !== job.id || !Array.isArray(ms)) return;
        for (const m of ms) {
          if (collector.accept(m)) return finish(collector.stoppedByTimeout ? { kind: 'timeout' } : { kind: 'done' });
        }
      };
      const onClose = (exitCode: number | null, signal: string | null) => {
        if (memoryEvidence(proc.stderrTail)) finish({ kind: 'memory' });
        else finish({ kind: 'crashed', error: `the sandbox process died (code ${exitCode}, signal ${signal}) ${proc.stderrTail.trim().slice(-300)}`.trim() });
      };
      const timer = setTimeout(() => {
        proc.child.kill('SIGKILL');
        this.discard(proc);
        finish({ kind: 'timeout' });
      }, lim.timeoutMs + GRACE_MS);
      proc.child.on('message', onMessage);
      proc.child.on('close', onClose);
      if (proc.exited) {
        onClose(proc.child.exitCode, proc.child.signalCode);
        return;
      }
      try {
        proc.child.send(JSON.stringify(job));
      } catch (e) {
        finish({ kind: 'crashed', error: `could not send the job to the sandbox process: ${e instanceof Error ? e.message : String(e)}` });
      }
    });
  }

  private async acquire(memoryMb: number): Promise<SandboxProcess> {
    for (;;) {
      this.procs.splice(0, this.procs.length, ...this.procs.filter((p) => !p.exited || p.busy));
      const idle = this.procs.find((p) => !p.busy && !p.exited && p.memoryMb === memoryMb);
      if (idle) {
        idle.busy = true;
        return idle;
      }
      if (this.procs.length >= this.options.size) {
        // Replace an idle process with another memory limit, or wait for one to be released.
        const other = this.procs.find((p) => !p.busy);
        if (other) this.discard(other);
        else await new Promise<void>((resolve) => this.waiting.push(resolve));
        continue;
      }
      const proc = spawnSandboxProcess(memoryMb);
      proc.busy = true;
      this.procs.push(proc);
      return proc;
    }
  }

  private release(proc: SandboxProcess): void {
    proc.busy = false;
    if (proc.exited || proc.runs >= this.options.maxRunsPerProcess) this.discard(proc);
    this.waiting.shift()?.();
  }

  private discard(proc: SandboxProcess): void {
    const i = this.procs.indexOf(proc);
    if (i !== -1) this.procs.splice(i, 1);
    if (!proc.exited) proc.child.kill('SIGKILL');
    proc.exited = true;
  }
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
