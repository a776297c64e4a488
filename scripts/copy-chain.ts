// `npm run copy-chain -- --out DIR`: the copy-probe phases of scripts/lib/copyChain.ts, one after the
// other, into DIR/A … DIR/E (≈ 91 min on llvmpipe here). A phase whose folder already holds its final
// step is skipped, so a stopped chain continues where it left off.
// With --bundle, DIR/E then replaces the bundled copy base in public/models/nano-copy-base/
// (scripts/lib/copyBase.ts). Then: npm run learn -- --preset nano --init DIR/E … (README "What learns today").
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { bundleCopyBase, COPY_BASE_DIR } from './lib/copyBase';
import { COPY_CHAIN_PHASES, COPY_CHAIN_RESULT, copyChainArgs, copyChainPhaseDone } from './lib/copyChain';

const USAGE = `usage: npm run copy-chain -- --out DIR [--bundle]   (${COPY_CHAIN_PHASES.length} copy-probe runs into ${COPY_CHAIN_PHASES.map((p) => `DIR/${p.name}`).join(', ')}; a finished phase is skipped; --bundle copies DIR/${COPY_CHAIN_RESULT} to ${COPY_BASE_DIR})`;

async function main(): Promise<number> {
  const { values: v } = parseArgs({ args: process.argv.slice(2), strict: true, allowPositionals: false, options: { out: { type: 'string' }, bundle: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
  if (v.help) {
    console.log(USAGE);
    return 0;
  }
  if (v.out === undefined || v.out.trim() === '') throw new Error(`--out DIR is required\n${USAGE}`);
  const t0 = Date.now();
  for (const [i, phase] of COPY_CHAIN_PHASES.entries()) {
    if (copyChainPhaseDone(v.out, i)) {
      console.log(`[copy-chain] phase ${phase.name}: already done (${phase.totalSteps} steps in all), skipped`);
      continue;
    }
    const args = copyChainArgs(v.out, i);
    console.log(`[copy-chain] phase ${phase.name} (${i + 1}/${COPY_CHAIN_PHASES.length}): npm run copy-probe -- ${args.join(' ')}`);
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--import', './scripts/lib/wgslLoader.mjs', 'scripts/copy-probe.ts', ...args], { stdio: 'inherit' });
    if (r.status !== 0) throw new Error(`phase ${phase.name} failed (exit ${r.status ?? r.signal}); run the same command again to continue from the last finished phase`);
  }
  console.log(`[copy-chain] done in ${((Date.now() - t0) / 60000).toFixed(1)} min: the model that copies is ${v.out}/${COPY_CHAIN_RESULT}`);
  if (v.bundle) {
    // the adapter the phases ran on (copy-probe's own choice), recorded with the weights
    const { acquireDevice, describeContext } = await import('../src/gpu/device');
    const { nodeGpu } = await import('../src/gpu/nodeGpu');
    const adapter = describeContext(await acquireDevice({ gpu: nodeGpu('opengles'), featureLevel: 'compatibility' }));
    const p = bundleCopyBase(v.out, adapter);
    console.log(`[copy-chain] bundled ${v.out}/${COPY_CHAIN_RESULT} as ${COPY_BASE_DIR} (sha256 ${p.sha256.slice(0, 12)}…, ${p.bytes} bytes, held-out exact copy ${p.heldOutExactCopy.k}/${p.heldOutExactCopy.n})`);
  }
  return 0;
}

main().then((code) => process.exit(code), (e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
