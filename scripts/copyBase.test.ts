// The bundled copy base (public/models/nano-copy-base): the weights the page's "nano copy base"
// button, `npm run demo` and `--init public/models/nano-copy-base` start from. Checks that the
// file is the one provenance.json names (SHA-256), that it was made by the chain the code has now
// (a changed phase without a rebuilt bundle fails here), that it loads as `nano` through the real
// loading code, and that what it trained on carries no routing value of any split.
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COPY_BASE } from '../src/model/bundledModels';
import { copyDrills } from '../src/data/copyDrills';
import { ROUTING_VALUE_POOLS } from '../src/envs/functionCalling/routingPools';
import { parameterTable } from '../src/model/parameters';
import { PRESETS } from '../src/model/config';
import { COPY_BASE_DIR, COPY_BASE_FILES, type CopyBaseProvenance, bundleCopyBase, sha256File } from './lib/copyBase';
import { COPY_CHAIN_PHASES } from './lib/copyChain';
import type { CopyProbeRecord } from './lib/copyProbeFolder';
import { readPresetFolder } from './lib/presetFolder';

const read = <T>(f: string): T => JSON.parse(readFileSync(join(COPY_BASE_DIR, f), 'utf8')) as T;

describe('the bundled copy base', () => {
  it('is the file its provenance names, made by the chain in the code', () => {
    const p = read<CopyBaseProvenance>('provenance.json');
    expect(sha256File(join(COPY_BASE_DIR, 'model.safetensors'))).toBe(p.sha256);
    expect(readFileSync(join(COPY_BASE_DIR, 'model.safetensors')).byteLength).toBe(p.bytes);
    expect(p.phases).toEqual(COPY_CHAIN_PHASES);
    const record = read<CopyProbeRecord>('copy-probe.json');
    expect(record.preset).toBe(COPY_BASE.preset);
    expect(record.totalSteps).toBe(COPY_CHAIN_PHASES[COPY_CHAIN_PHASES.length - 1].totalSteps);
    // one drill stream per phase, each phase's --drills with its --seed (copy-probe's default seed 1)
    const flag = (f: string[], name: string, fallback: string) => (f.includes(name) ? f[f.indexOf(name) + 1] : fallback);
    expect(record.drillSources).toEqual(COPY_CHAIN_PHASES.map((ph) => ({ seed: Number(flag(ph.flags, '--seed', '1')), drills: Number(flag(ph.flags, '--drills', '0')) })));
    expect(p.heldOutExactCopy).toEqual({ k: record.point.exact.successes, n: record.point.exact.n });
  });

  it('loads as the nano preset through the real loading code, every weight finite', () => {
    const { cfg, params } = readPresetFolder(COPY_BASE_DIR, COPY_BASE.preset, '--init', 'the bundled base is nano');
    expect(cfg.hiddenSize).toBe(PRESETS.nano.hiddenSize);
    for (const t of parameterTable(cfg)) {
      const v = params.get(t.name)!;
      expect(v.length, t.name).toBe(t.shape.reduce((a, b) => a * b, 1));
      expect(v.every(Number.isFinite), t.name).toBe(true);
    }
  });

  it('trained on drills that hold no routing value of any split (train, validation or test)', () => {
    const values = new Set(Object.values(ROUTING_VALUE_POOLS).flat().map((v) => v.toLowerCase()));
    const record = read<CopyProbeRecord>('copy-probe.json');
    let words = 0;
    for (const s of record.drillSources) {
      for (const d of copyDrills(s.drills, s.seed)) {
        for (const w of d.messages[1].content.split(' ')) {
          words++;
          expect(values.has(w.toLowerCase()), `"${w}" in a drill of seed ${s.seed}`).toBe(false);
        }
      }
    }
    expect(words).toBe(314_410); // 82 000 drill requests: every word checked
  });
});

describe('bundleCopyBase', () => {
  const chainWith = (totalSteps: number) => {
    const dir = mkdtempSync(join(tmpdir(), 'copy-chain-'));
    const e = join(dir, 'E');
    mkdirSync(e);
    writeFileSync(join(e, 'config.json'), '{}');
    writeFileSync(join(e, 'model.safetensors'), 'weights');
    writeFileSync(join(e, 'copy-probe.json'), JSON.stringify({ totalSteps, point: { exact: { successes: 60, n: 64 } } }));
    return dir;
  };

  it('copies the last phase and writes its SHA-256, the phases and the adapter', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'bundle-')), 'base');
    const chain = chainWith(COPY_CHAIN_PHASES[COPY_CHAIN_PHASES.length - 1].totalSteps);
    const p = bundleCopyBase(chain, 'test adapter', out);
    expect(p.sha256).toBe('9a129038d9a00aed0cf6a7ea059ca50a813449061ab87848cf1a13eafdf33b2c'); // sha256sum of "weights"
    expect(p).toMatchObject({ bytes: 7, adapter: 'test adapter', heldOutExactCopy: { k: 60, n: 64 }, phases: COPY_CHAIN_PHASES });
    for (const f of COPY_BASE_FILES) expect(readFileSync(join(out, f), 'utf8')).toBe(readFileSync(join(chain, 'E', f), 'utf8'));
    expect(JSON.parse(readFileSync(join(out, 'provenance.json'), 'utf8'))).toEqual(p);
  });

  it('refuses a chain whose last phase has not finished', () => {
    expect(() => bundleCopyBase(chainWith(3000), 'a', join(tmpdir(), 'never'))).toThrow(/3000 training steps, the chain's last phase ends at 3200; finish the chain first/);
  });
});
