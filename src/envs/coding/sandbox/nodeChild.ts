// One Node sandbox process, started ahead of time and used for exactly one run, then killed. The
// host enforces every limit from outside, whatever the process does or claims:
//   - time: SIGKILL at timeoutMs + HOST_GRACE_MS (the process stops the code at timeoutMs itself);
//   - leftover work: once the code returned from its tests ('returned'), the process gets
//     SETTLE_CPU_MS of CPU time (SETTLE_WALL_MS of wall time without /proc) to say 'done', within
//     the overall deadline; a process that exited on its own is never stopped (its lines decide);
//   - memory: RSS read from /proc every POLL_MS, SIGKILL past the headroom (V8's heap limit and,
//     without /proc, a watchdog thread in the process back this up);
//   - output: message size, count and total characters (RunCollector's caps), console output
//     clipped to maxOutputChars, one report per test (first wins).
import { spawn, type ChildProcess } from 'node:child_process';
import { RunCollector, SETTLE_CPU_MS, SETTLE_WALL_MS, type RunEnding } from './grade';
import { NODE_CHILD_SOURCE, type NodeChildJob, type NodeChildOptions } from './nodeChildSource';
import { cpuMs, hasExited, procAvailable, residentBytes } from './procStats';
import type { SandboxLimits, SandboxResult, SandboxTest } from './types';

const HOST_GRACE_MS = 500; // past timeoutMs, for the process to report its own timeout
const START_TIMEOUT_MS = 15_000; // a process that is not ready by then counts as failed
const POLL_MS = 10;
const STDERR_TAIL_CHARS = 4096;
const MAX_JOB_BYTES = 8 * 1024 * 1024;

/** RSS growth allowed over the process's size when ready: the heap limit plus ArrayBuffers and slack. */
export function rssHeadroomMb(memoryMb: number): number {
  return 2 * memoryMb + 64;
}

function permissionFlags(): string[] {
  const allowed = process.allowedNodeEnvironmentFlags;
  if (allowed.has('--permission')) return ['--permission'];
  if (allowed.has('--experimental-permission')) return ['--experimental-permission'];
  return [];
}

function memoryEvidence(stderr: string): boolean {
  return /TABFORGE_SANDBOX_MEMORY_LIMIT|heap out of memory|Allocation failed|Reached heap limit/.test(stderr);
}

/** How to start the process (tests replace `program` with a hostile one to prove the host-side limits). */
export interface ChildSpec {
  memoryMb: number;
  /** Program text for `node -e` (default NODE_CHILD_SOURCE). */
  program?: string;
  /** Force the in-process RSS watchdog even where /proc is readable. */
  watchdog?: boolean;
}

export class SandboxChild {
  readonly memoryMb: number;
  /** Resolves when the process said 'ready'; rejects with a readable reason otherwise. */
  readonly ready: Promise<void>;
  private readonly child: ChildProcess;
  private readonly useProc: boolean;
  private stderrTail = '';
  private exited = false;
  private baselineRss = 0;
  private onLine: (line: string) => boolean = () => false;
  private pending = '';
  private maxPendingChars = 1 << 16;
  private onClose: () => void = () => {};

  constructor(spec: ChildSpec) {
    this.memoryMb = spec.memoryMb;
    this.useProc = procAvailable() && spec.watchdog !== true;
    const options: NodeChildOptions = { maxJobBytes: MAX_JOB_BYTES, ...(this.useProc ? {} : { watchdogRssHeadroomMb: rssHeadroomMb(spec.memoryMb) }) };
    const flags = [...permissionFlags(), ...(this.useProc ? [] : ['--allow-worker']), '--experimental-vm-modules', '--no-warnings', `--max-old-space-size=${spec.memoryMb}`];
    // No environment, no IPC channel: stdin carries the job, stdout the reports, stderr crash text.
    this.child = spawn(process.execPath, [...flags, '-e', spec.program ?? NODE_CHILD_SOURCE, JSON.stringify(options)], { stdio: ['pipe', 'pipe', 'pipe'], env: {}, windowsHide: true });
    // A sandbox process must never keep the host (a test run, a CLI) alive; a run's own timers do.
    this.child.unref();
    for (const s of [this.child.stdin, this.child.stdout, this.child.stderr]) (s as unknown as { unref?: () => void } | null)?.unref?.();
    this.child.stdin?.on('error', () => undefined); // EPIPE when the process is already gone
    this.child.stderr?.setEncoding('utf8');
    this.child.stderr?.on('data', (d: string) => {
      this.stderrTail = (this.stderrTail + d).slice(-STDERR_TAIL_CHARS);
    });
    this.child.stdout?.setEncoding('utf8');
    this.child.stdout?.on('data', (d: string) => this.receive(d));
    this.child.on('error', () => {
      this.exited = true;
    });
    this.child.on('close', () => {
      this.exited = true;
      this.onClose();
    });
    this.ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.kill();
        reject(new Error(`the Node sandbox process did not start within ${START_TIMEOUT_MS} ms`));
      }, START_TIMEOUT_MS);
      timer.unref();
      this.onLine = (line) => {
        this.onLine = () => true; // one line decides the start; anything more before the job is ignored
        if (line === '{"t":"ready"}') {
          clearTimeout(timer);
          this.baselineRss = (this.child.pid !== undefined ? residentBytes(this.child.pid) : undefined) ?? 0;
          resolve();
        } else {
          clearTimeout(timer);
          this.kill();
          reject(new Error(`the Node sandbox process did not start: ${line.slice(0, 500)}`));
        }
        return false;
      };
      this.onClose = () => {
        clearTimeout(timer);
        reject(new Error(`the Node sandbox process exited while starting (code ${this.child.exitCode}, signal ${this.child.signalCode}): ${this.stderrTail.trim().slice(-500)}`));
      };
    });
    this.ready.catch(() => undefined); // a start failure is reported by the run that awaits it
  }

  get alive(): boolean {
    return !this.exited;
  }

  kill(): void {
    if (!this.exited) this.child.kill('SIGKILL');
  }

  /** Runs one job; the process is killed at the end whatever happened. Never rejects. */
  run(job: NodeChildJob, tests: SandboxTest[], limits: SandboxLimits): Promise<SandboxResult> {
    const collector = new RunCollector(tests, limits, 'node', Date.now());
    const pid = this.child.pid;
    this.maxPendingChars = collector.caps.maxMessageChars;
    return new Promise<SandboxResult>((resolve) => {
      let settled = false;
      let returnedAt: { wall: number; cpu: number | undefined } | undefined;
      const finish = (ending: RunEnding) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        clearInterval(poll);
        this.onLine = () => true;
        this.onClose = () => {};
        this.kill();
        resolve(collector.finish(ending));
      };
      this.onLine = (line) => {
        if (collector.accept(line)) finish(collector.stoppedByTimeout ? { kind: 'timeout' } : { kind: 'done' });
        else if (collector.returned && returnedAt === undefined) returnedAt = { wall: Date.now(), cpu: pid !== undefined ? cpuMs(pid) : undefined };
        return settled;
      };
      this.onClose = () => {
        if (memoryEvidence(this.stderrTail)) finish({ kind: 'memory' });
        else finish({ kind: 'crashed', error: `the sandbox process died (code ${this.child.exitCode}, signal ${this.child.signalCode}) ${this.stderrTail.trim().slice(-300)}`.trim() });
      };
      // A process that already exited finished on its own: its last lines may still sit in the pipe
      // (a busy host reads late), so 'close' decides, after every line is in. Only a live one is stopped.
      const stopUnlessExited = (ending: RunEnding) => {
        const exited = this.child.exitCode !== null || this.child.signalCode !== null || (pid !== undefined && hasExited(pid));
        if (!exited) finish(ending);
      };
      const deadline = setTimeout(() => stopUnlessExited({ kind: 'timeout' }), limits.timeoutMs + HOST_GRACE_MS);
      const headroom = rssHeadroomMb(limits.memoryMb) * 1024 * 1024;
      const poll = setInterval(() => {
        if (pid === undefined) return;
        const rss = this.useProc ? residentBytes(pid) : undefined;
        if (rss !== undefined && rss > this.baselineRss + headroom) return finish({ kind: 'memory' });
        if (returnedAt !== undefined) {
          // CPU time where /proc has it: a host too busy to read the pipe cannot make honest code look
          // like it kept running, and code that does keep running burns CPU (nothing in the context can wait).
          if (returnedAt.cpu !== undefined) {
            const cpu = cpuMs(pid);
            if (cpu !== undefined && cpu - returnedAt.cpu >= SETTLE_CPU_MS) stopUnlessExited({ kind: 'timeout' });
          } else if (Date.now() - returnedAt.wall >= SETTLE_WALL_MS) {
            stopUnlessExited({ kind: 'timeout' });
          }
        }
      }, POLL_MS);
      if (this.exited) return this.onClose();
      this.child.stdin?.end(JSON.stringify(job));
    });
  }

  private receive(chunk: string): void {
    this.pending += chunk;
    let nl: number;
    while ((nl = this.pending.indexOf('\n')) !== -1) {
      const line = this.pending.slice(0, nl);
      this.pending = this.pending.slice(nl + 1);
      if (this.onLine(line)) {
        this.pending = ''; // the run is over: whatever else the process sends is dropped unread
        return;
      }
    }
    // A line that never ends is as bad as one that is too long: the run's caps decide.
    if (this.pending.length > this.maxPendingChars) {
      const line = this.pending;
      this.pending = '';
      this.onLine(line);
    }
  }
}
