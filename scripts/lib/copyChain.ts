// The copy chain (README "What learns today"): copy-probe runs that turn a fresh `nano` into a model
// that copies unseen strings into a call. Phase A forms an induction head on repeated random runs
// (lr 1e-2, q/k norm gains 3); B adds many copy drills so the head is used in the call format; C, D and
// E continue with C's settings on fresh drill streams (exact copy of each phase's own held-out strings:
// 45.3 % after C's 2 200 steps, ≈ 64 min on llvmpipe here; 57.8 % after D's 2 600; 93.8 % after E's
// 3 200, ≈ 91 min in all). The flags are those the README's figures were measured with; `npm run learn
// -- --init DIR/E` and `npm run merge-table -- --init DIR/E` start from the result (the README's earlier
// tables started from DIR/C or DIR/D, which stay in the folder).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface CopyChainPhase {
  /** Folder name under the chain's folder. */
  name: 'A' | 'B' | 'C' | 'D' | 'E';
  /** copy-probe flags, --from/--save excluded. */
  flags: string[];
  /** Training steps behind the phase's saved weights, over the whole chain (its copy-probe.json totalSteps). */
  totalSteps: number;
}

export const COPY_CHAIN_PHASES: readonly CopyChainPhase[] = [
  { name: 'A', flags: ['--steps', '1200', '--every', '600', '--induction', '40000', '--drills', '2000', '--qk-gain', '3', '--lr', '0.01'], totalSteps: 1200 },
  { name: 'B', flags: ['--steps', '600', '--every', '600', '--drills', '20000', '--induction', '20000', '--lr', '0.003', '--seed', '2'], totalSteps: 1800 },
  { name: 'C', flags: ['--steps', '400', '--every', '400', '--drills', '20000', '--induction', '10000', '--lr', '0.003', '--seed', '3'], totalSteps: 2200 },
  { name: 'D', flags: ['--steps', '400', '--every', '200', '--drills', '20000', '--induction', '10000', '--lr', '0.003', '--seed', '4'], totalSteps: 2600 },
  { name: 'E', flags: ['--steps', '600', '--every', '200', '--drills', '20000', '--induction', '10000', '--lr', '0.003', '--seed', '5'], totalSteps: 3200 },
];

/** The chain's last phase: the model that copies. */
export const COPY_CHAIN_RESULT = COPY_CHAIN_PHASES[COPY_CHAIN_PHASES.length - 1].name;

/** The copy-probe arguments of phase `i` with the chain in `dir` (each phase continues the one before). */
export function copyChainArgs(dir: string, i: number): string[] {
  const p = COPY_CHAIN_PHASES[i];
  const from = i === 0 ? [] : ['--from', join(dir, COPY_CHAIN_PHASES[i - 1].name)];
  return [...p.flags, ...from, '--save', join(dir, p.name)];
}

/**
 * Whether phase `i` is already done in `dir`: its record (written last at each probe) says the phase's
 * total steps. A phase stopped part-way has fewer and runs again from the phase before.
 */
export function copyChainPhaseDone(dir: string, i: number): boolean {
  const record = join(dir, COPY_CHAIN_PHASES[i].name, 'copy-probe.json');
  if (!existsSync(record)) return false;
  try {
    return (JSON.parse(readFileSync(record, 'utf8')) as { totalSteps?: unknown }).totalSteps === COPY_CHAIN_PHASES[i].totalSteps;
  } catch {
    return false; // unreadable: run the phase again
  }
}
