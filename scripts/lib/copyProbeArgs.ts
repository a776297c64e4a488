// Flags of `npm run copy-probe` (scripts/copy-probe.ts), checked: a bad value names the flag and what it takes.
import { parseArgs } from 'node:util';
import type { PresetName } from '../../src/model/config';
import { COPY_PROBE_DEFAULTS, type CopyProbeOptions } from '../../src/pipeline/copyProbe';
import { integerFlag, MAX_COUNT, numberFlag, oneOfFlag } from '../../src/util/flagValues';

const PRESETS: readonly PresetName[] = ['nano', 'nano-q', 'tiny', 'tiny-q'];

function count(flag: string, v: string | undefined, d: number, min = 1): number {
  return v === undefined ? d : integerFlag(flag, v, { min, max: MAX_COUNT });
}

function positive(flag: string, v: string | undefined, d: number): number {
  return v === undefined ? d : numberFlag(flag, v, { positive: true });
}

/** The probe's options and where its weights are saved to / continued from. */
export interface CopyProbeCli extends CopyProbeOptions {
  save?: string;
  from?: string;
}

export function parseCopyProbeArgs(argv: string[]): CopyProbeCli {
  const s = { type: 'string' } as const;
  const { values: v } = parseArgs({ args: argv, strict: true, allowPositionals: false, options: { preset: s, seed: s, drills: s, steps: s, batch: s, lr: s, 'seq-len': s, 'held-out': s, every: s, 'qk-gain': s, induction: s, emails: s, save: s, from: s } });
  for (const f of ['save', 'from'] as const) if (v[f] !== undefined && v[f].trim() === '') throw new Error(`--${f} takes a folder path`);
  if (v.from !== undefined && v['qk-gain'] !== undefined) throw new Error('--qk-gain sets the initial q/k norm gains of a fresh model; --from continues saved weights: drop one');
  const d = COPY_PROBE_DEFAULTS;
  return {
    preset: v.preset === undefined ? d.preset : oneOfFlag('preset', v.preset, PRESETS),
    seed: count('seed', v.seed, d.seed, 0),
    drills: count('drills', v.drills, d.drills),
    steps: count('steps', v.steps, d.steps),
    batch: count('batch', v.batch, d.batch),
    lr: positive('lr', v.lr, d.lr),
    seqLen: count('seq-len', v['seq-len'], d.seqLen, 64),
    heldOut: count('held-out', v['held-out'], d.heldOut),
    probeEvery: count('every', v.every, d.probeEvery),
    qkNormGain: positive('qk-gain', v['qk-gain'], d.qkNormGain),
    induction: count('induction', v.induction, d.induction, 0),
    ...(v.emails !== undefined && { emails: numberFlag('emails', v.emails, { min: 0, max: 1 }) }),
    ...(v.save !== undefined && { save: v.save }),
    ...(v.from !== undefined && { from: v.from }),
  };
}
