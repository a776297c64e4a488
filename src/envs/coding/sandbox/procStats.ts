// What the host can read about a sandbox process from Linux's /proc without its cooperation:
// resident memory and CPU time. Elsewhere both read as undefined and the callers fall back
// (a watchdog thread inside the process for memory, wall time for the settle window).
import { readFileSync } from 'node:fs';

/** Linux reports CPU time in clock ticks of 1/100 s (USER_HZ, fixed at 100 on every mainstream kernel). */
const MS_PER_TICK = 10;

let available: boolean | undefined;

/** True when /proc/<pid>/{status,stat} can be read (Linux). */
export function procAvailable(): boolean {
  if (available === undefined) {
    try {
      readFileSync(`/proc/${process.pid}/stat`, 'utf8');
      available = true;
    } catch {
      available = false;
    }
  }
  return available;
}

/** Resident set size in bytes, or undefined (no /proc, or the process is gone). */
export function residentBytes(pid: number): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m === null ? undefined : Number(m[1]) * 1024;
  } catch {
    return undefined;
  }
}

/** User + system CPU time in milliseconds (10 ms resolution), or undefined. */
export function cpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields after its last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]); // utime (field 14) + stime (field 15)
    return Number.isFinite(ticks) ? ticks * MS_PER_TICK : undefined;
  } catch {
    return undefined;
  }
}

/** True when the process has exited (a zombie not yet reaped, or gone), whatever the host's event loop has seen so far; false otherwise or without /proc. */
export function hasExited(pid: number): boolean {
  if (!procAvailable()) return false;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state === 'Z' || state === 'X';
  } catch {
    return true;
  }
}
