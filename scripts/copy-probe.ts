// `npm run copy-probe -- [--preset nano] [--steps 400] [--batch 16] [--lr 0.003] [--qk-gain 1] [--seed 1]
// [--every 100] [--held-out 64] [--drills 20000] [--induction 0] [--emails F] [--save DIR] [--from DIR]`: trains a fresh model (or,
// with --from, a saved one) on copy drills and prints, every --every steps, the exact-copy rate of held-out random
// strings (src/pipeline/copyProbe.ts; --emails F makes that share of the drills email lookups, src/data/emailDrills.ts); --save DIR rewrites the weights there at every probe (scripts/lib/copyProbeFolder.ts).
// Node, Dawn's OpenGL ES adapter (llvmpipe). Last stdout line: the points as one JSON array.
import { acquireDevice, describeContext } from '../src/gpu/device';
import { nodeGpu } from '../src/gpu/nodeGpu';
import { GpuRuntime } from '../src/gpu/runtime';
import { formatRate } from '../src/eval/report';
import { PRESETS } from '../src/model/config';
import { runCopyProbe } from '../src/pipeline/copyProbe';
import { parseCopyProbeArgs } from './lib/copyProbeArgs';
import { type CopyProbeRecord, loadProbeFolder, saveProbeFolder } from './lib/copyProbeFolder';

async function main(): Promise<number> {
  const { save, from: fromDir, ...o } = parseCopyProbeArgs(process.argv.slice(2));
  const from = fromDir === undefined ? undefined : loadProbeFolder(fromDir, o.preset);
  if (from) console.log(`[copy-probe] continuing ${fromDir}: ${from.record.totalSteps} steps on ${from.record.drillSources.map((s) => `${s.drills} drills of seed ${s.seed}`).join(', ')}`);
  const ctx = await acquireDevice({ gpu: nodeGpu('opengles'), featureLevel: 'compatibility' });
  console.log(`[copy-probe] adapter: ${describeContext(ctx)}; ${JSON.stringify(o)}`);
  const t0 = performance.now();
  const points = await runCopyProbe(new GpuRuntime(ctx), o, (p) => {
    const s = ((performance.now() - t0) / 1000).toFixed(0);
    console.log(`[copy-probe] step ${p.step} (${s} s): loss ${p.loss.toFixed(3)}, held-out drill loss ${p.heldOutDrillLoss.toFixed(3)} (string's first token ${p.heldOutFirstTokenLoss.toFixed(3)}, its other tokens ${p.heldOutRestLoss.toFixed(3)}), held-out induction loss ${p.heldOutInductionLoss.toFixed(3)}, exact copy ${formatRate(p.exact)}, copied prefix ${(100 * p.copiedPrefix).toFixed(1)} % | want "${p.example.want}" got ${JSON.stringify(p.example.got)}`);
  }, {
    from: from?.start,
    // only with --save: reading every weight back at each probe costs a GPU readback
    onProbe: save === undefined ? undefined : async (p, weights) => {
      const record: CopyProbeRecord = {
        preset: o.preset, drillSources: [...(from?.record.drillSources ?? []), { seed: o.seed, drills: o.drills, ...(o.emails !== undefined && { emails: o.emails }) }],
        totalSteps: (from?.record.totalSteps ?? 0) + p.step, point: p,
      };
      saveProbeFolder(save, PRESETS[o.preset], weights, record);
    },
  });
  console.log(JSON.stringify(points));
  return 0;
}

main().then((code) => process.exit(code), (e) => {
  console.error(`copy-probe: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
