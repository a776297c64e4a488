// `npm run bench`: builds the pages, serves them on 127.0.0.1, opens src/app/bench.html in headless
// Chromium once per adapter (SwiftShader core, llvmpipe compatibility), runs every registered bench
// row there side by side with tfjs-webgpu and onnxruntime-web, prints a table per adapter and writes
// the JSON file (shape documented in src/app/bench/report.ts).
// Full run, both adapters, 9 rows, on the 2-core development machine: 3 min 13 s to 4 min 11 s
// (load average 5–8 from other jobs; the total is printed at the end). --quick: 1–3 repeats.
// With all 25 rows (matmul, attention, AdamW, train, decode, GRPO throughput): 14 min 7 s at load
// average 5–7, of which the GRPO throughput rows took 2 min 39 s (SwiftShader) + 59 s (llvmpipe);
// `--filter 'grpo throughput'` runs only those. The load average is recorded in the JSON's meta:
// on 2 shared cores it moves the GRPO async/sync ratio by tens of percent.
// `--swarm` runs the swarm section instead (not part of the default run): rollout tokens/s with 1, 2
// and 3 tabs and with a frozen tab, weight broadcast per 10 M parameters over tabs and libp2p
// (scripts/lib/swarmTabsBench.ts, llvmpipe), bytes per step of each training mode (swarmBytesBench.ts,
// Node). Full: about 6 min here; --quick about 3 min.
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import type { BenchReport } from '../src/app/bench/report';
import { formatTable, toBenchFile } from '../src/app/bench/report';
import { BENCH_USAGE, parseBenchArgs } from './lib/benchArgs';
import { type BrowserAdapter, featureLevelFor, forwardConsole, launchChromium } from './lib/browser';
import { startServer } from './lib/server';
import { nodeStorageRows } from './lib/storageBenchNode';
import { swarmBytesRows } from './lib/swarmBytesBench';
import { swarmTabRows } from './lib/swarmTabsBench';

const log = (line: string) => console.log(`[bench] ${line}`);

async function benchOn(adapter: BrowserAdapter, url: string, opts: { quick: boolean; filter?: string }): Promise<BenchReport> {
  const browser = await launchChromium({ adapter });
  try {
    const page = await browser.newPage();
    forwardConsole(page, `[${adapter}]`);
    await page.goto(`${url}/bench.html`);
    await page.waitForFunction(() => window.tabforgeBench?.ready === true, undefined, { timeout: 120_000 });
    const report = await page.evaluate((o) => window.tabforgeBench.run(o), { featureLevel: featureLevelFor(adapter), quick: opts.quick, filter: opts.filter });
    // Chromium hides the GL adapter's info strings, so llvmpipe is recognised by its feature level.
    const detected = report.adapter.kind;
    const ok = adapter === 'swiftshader' ? detected === 'swiftshader' : report.adapter.featureLevel === 'compatibility' && detected !== 'swiftshader';
    if (!ok) {
      throw new Error(`asked Chromium for ${adapter} but the page got '${report.adapter.description}' (for llvmpipe: npm run setup installs mesa-vulkan-drivers); results discarded`);
    }
    if (detected !== adapter) report.adapter = { ...report.adapter, kind: adapter, description: `${report.adapter.description} — ${adapter} (Chromium hides this adapter's info; identified by launch flags)` };
    return report;
  } finally {
    await browser.close();
  }
}

async function main(): Promise<number> {
  const args = parseBenchArgs(process.argv.slice(2));
  if (args.help) {
    console.log(BENCH_USAGE);
    return 0;
  }
  const t0 = Date.now();
  const loadAtStart = loadavg();
  const server = await startServer({ log });
  const reports: BenchReport[] = [];
  const failures: { adapter: BrowserAdapter; error: string }[] = [];
  try {
    if (args.swarm) {
      log('swarm section: tabs on llvmpipe …');
      try {
        reports.push(await swarmTabRows(server.url, args, log));
      } catch (e) {
        failures.push({ adapter: 'llvmpipe', error: e instanceof Error ? e.message : String(e) });
      }
    }
    for (const adapter of args.swarm ? [] : args.adapters) {
      const ta = Date.now();
      log(`${adapter}: starting Chromium …`);
      try {
        reports.push(await benchOn(adapter, server.url, args));
        log(`${adapter}: done in ${((Date.now() - ta) / 1000).toFixed(0)} s`);
      } catch (e) {
        const error = e instanceof Error ? e.message : String(e);
        failures.push({ adapter, error });
        log(`${adapter}: FAILED — ${error}`);
      }
    }
  } finally {
    await server.close();
  }
  const node = args.swarm ? null : await nodeStorageRows(args); // checkpoint save/load on disk and merge time, in Node
  if (node) reports.push(node);
  if (args.swarm) {
    log('swarm section: bytes per step in Node …');
    reports.push({ adapter: { kind: 'node-llvmpipe', description: `Node ${process.version}, webgpu (Dawn, OpenGL ES on llvmpipe), 2 ranks on a memory hub`, featureLevel: 'compatibility', vendor: '', architecture: '' }, results: await swarmBytesRows() });
  }
  const seconds = Math.round((Date.now() - t0) / 1000);
  const loadAverage = { start: loadAtStart.map((l) => +l.toFixed(2)), end: loadavg().map((l) => +l.toFixed(2)) };
  console.log();
  for (const r of reports) console.log(`${formatTable(r)}\n`);
  for (const f of failures) console.log(`adapter ${f.adapter}: no results — ${f.error}\n`);
  if (args.out && reports.length > 0) {
    const file = toBenchFile(reports, { date: new Date().toISOString(), quick: args.quick, filter: args.filter ?? null, seconds, loadAverage, failures });
    writeFileSync(args.out, `${JSON.stringify(file, null, 2)}\n`);
    log(`wrote ${args.out}`);
  }
  log(`total ${Math.floor(seconds / 60)} min ${seconds % 60} s; load average (1/5/15 min) ${loadAverage.start.join(' ')} at start, ${loadAverage.end.join(' ')} at the end`);
  return failures.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`[bench] ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  },
);
