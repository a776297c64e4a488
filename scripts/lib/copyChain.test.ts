// The copy chain's phases are the README's commands (the flags its figures were measured with), each
// continues the one before, and a phase counts as done only when its saved record has its last step.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COPY_CHAIN_PHASES, copyChainArgs, copyChainPhaseDone } from './copyChain';
import { parseCopyProbeArgs } from './copyProbeArgs';

describe('copy chain', () => {
  it('five phases with the README flags, each from the one before; the steps add up', () => {
    const opts = COPY_CHAIN_PHASES.map((_, i) => parseCopyProbeArgs(copyChainArgs('/c', i)));
    expect(opts.map((o) => [o.steps, o.lr, o.seed, o.drills, o.induction, o.qkNormGain])).toEqual([
      [1200, 0.01, 1, 2000, 40000, 3],
      [600, 0.003, 2, 20000, 20000, 1],
      [400, 0.003, 3, 20000, 10000, 1],
      [400, 0.003, 4, 20000, 10000, 1],
      [600, 0.003, 5, 20000, 10000, 1],
    ]);
    expect(opts.map((o) => [o.from, o.save])).toEqual([[undefined, '/c/A'], ['/c/A', '/c/B'], ['/c/B', '/c/C'], ['/c/C', '/c/D'], ['/c/D', '/c/E']]);
    expect(opts.every((o) => o.preset === 'nano' && o.batch === 16)).toBe(true);
    let total = 0;
    for (const [i, p] of COPY_CHAIN_PHASES.entries()) expect(p.totalSteps).toBe((total += opts[i].steps));
  });

  it('a phase is done only when its record holds its final step', () => {
    const dir = mkdtempSync(join(tmpdir(), 'chain-'));
    expect(copyChainPhaseDone(dir, 0)).toBe(false);
    mkdirSync(join(dir, 'A'));
    writeFileSync(join(dir, 'A', 'copy-probe.json'), JSON.stringify({ totalSteps: 600 })); // stopped after its first probe
    expect(copyChainPhaseDone(dir, 0)).toBe(false);
    writeFileSync(join(dir, 'A', 'copy-probe.json'), JSON.stringify({ totalSteps: 1200 }));
    expect(copyChainPhaseDone(dir, 0)).toBe(true);
    writeFileSync(join(dir, 'A', 'copy-probe.json'), '{"totalSt');
    expect(copyChainPhaseDone(dir, 0)).toBe(false);
  });
});
