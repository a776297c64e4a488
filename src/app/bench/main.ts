// The bench page: acquires our device and the peers' devices on one adapter, runs every registered
// bench row and shows the table. `window.tabforgeBench.run(opts)` is what scripts/bench.ts calls.
import { acquireDevice, describeContext, type FeatureLevelChoice } from '../../gpu/device';
import { GpuRuntime } from '../../gpu/runtime';
import { adapterKind } from '../../ops/matmul';
import './matmulBench';
import './attentionBench';
import './modelBench';
import './grpoBench';
import './storageBench';
import './swarmWire';
import { startPeers } from './peers';
import { registeredBenches, runBenches } from './registry';
import { type BenchReport, formatTable } from './report';

export interface PageRunOptions {
  featureLevel?: FeatureLevelChoice;
  quick?: boolean;
  filter?: string;
}

const out = document.getElementById('out')!;

function log(line: string): void {
  console.log(`[bench] ${line}`);
  out.textContent += `${line}\n`;
}

let running = false;

async function run(opts: PageRunOptions = {}): Promise<BenchReport> {
  if (running) throw new Error('a bench run is already in progress on this page; wait for it or reload');
  running = true;
  try {
    const ctx = await acquireDevice({ featureLevel: opts.featureLevel ?? 'auto' });
    const rt = new GpuRuntime(ctx);
    log(`adapter: ${describeContext(ctx)}; ${registeredBenches().length} rows registered${opts.filter ? `, filter '${opts.filter}'` : ''}${opts.quick ? ', quick' : ''}`);
    const peers = await startPeers(ctx.featureLevel, log);
    const results = await runBenches(rt, peers, { quick: opts.quick, filter: opts.filter, onProgress: log });
    const i = ctx.adapterInfo;
    const report: BenchReport = {
      adapter: { kind: adapterKind(ctx), description: describeContext(ctx), featureLevel: ctx.featureLevel, vendor: i.vendor, architecture: i.architecture },
      results,
    };
    log(`\n${formatTable(report)}`);
    rt.destroy();
    ctx.device.destroy();
    return report;
  } finally {
    running = false;
  }
}

const tabforgeBench = { run, ready: true };
declare global {
  interface Window {
    tabforgeBench: typeof tabforgeBench;
  }
}
window.tabforgeBench = tabforgeBench;

const params = new URLSearchParams(location.search);
const pageOpts: PageRunOptions = {
  featureLevel: (params.get('featureLevel') ?? 'auto') as FeatureLevelChoice,
  quick: params.get('quick') === '1',
  filter: params.get('filter') ?? undefined,
};
document.getElementById('run')!.addEventListener('click', () => void run(pageOpts).catch((e: unknown) => log(`failed: ${e instanceof Error ? e.message : String(e)}`)));
if (params.get('autorun') === '1') document.getElementById('run')!.click();
