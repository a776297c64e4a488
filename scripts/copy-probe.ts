// `npm run copy-probe -- [--preset nano] [--steps 400] [--batch 16] [--lr 0.003] [--qk-gain 1] [--seed 1]
// [--every 100] [--held-out 64] [--drills 20000] [--induction 0]`: trains a fresh model on copy drills alone and prints,
// every --every steps, the exact-copy rate of held-out random strings (src/pipeline/copyProbe.ts).
// Node, Dawn's OpenGL ES adapter (llvmpipe). Last stdout line: the points as one JSON array.
import { acquireDevice, describeContext } from '../src/gpu/device';
import { nodeGpu } from '../src/gpu/nodeGpu';
import { GpuRuntime } from '../src/gpu/runtime';
import { formatRate } from '../src/eval/report';
import { type CopyProbeOptions, runCopyProbe } from '../src/pipeline/copyProbe';
import { parseCopyProbeArgs } from './lib/copyProbeArgs';

async function main(): Promise<number> {
  const o: CopyProbeOptions = parseCopyProbeArgs(process.argv.slice(2));
  const ctx = await acquireDevice({ gpu: nodeGpu('opengles'), featureLevel: 'compatibility' });
  console.log(`[copy-probe] adapter: ${describeContext(ctx)}; ${JSON.stringify(o)}`);
  const t0 = performance.now();
  const points = await runCopyProbe(new GpuRuntime(ctx), o, (p) => {
    const s = ((performance.now() - t0) / 1000).toFixed(0);
    console.log(`[copy-probe] step ${p.step} (${s} s): loss ${p.loss.toFixed(3)}, exact copy ${formatRate(p.exact)}, copied prefix ${(100 * p.copiedPrefix).toFixed(1)} % | want "${p.example.want}" got ${JSON.stringify(p.example.got)}`);
  });
  console.log(JSON.stringify(points));
  return 0;
}

main().then((code) => process.exit(code), (e) => {
  console.error(`copy-probe: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
