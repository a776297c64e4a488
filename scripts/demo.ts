// `npm run demo`: the main job, headless. Builds and serves the page, opens it in Debian's
// headless Chromium with real WebGPU (llvmpipe compatibility adapter by default: the fastest CPU
// adapter here; --adapter swiftshader for the core one), and runs the demo pipeline inside the
// page's GPU Worker (Comlink): kernel self-check → SFT of `nano` on tool-calling conversations →
// held-out evaluation → a sample from the trained model. Prints progress and a summary.
//   npm run demo -- [--adapter llvmpipe|swiftshader] [--steps N] [--seed S] [--preset nano|tiny|small]
import type { DemoEvent, DemoSummary } from '../src/train/demoPipeline';
import type { WorkerFailure } from '../src/workers/gpu.worker';
import { type BrowserAdapter, featureLevelFor, launchChromium } from './lib/browser';
import { startServer } from './lib/server';

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const adapter = flag('adapter', 'llvmpipe') as BrowserAdapter;
if (adapter !== 'llvmpipe' && adapter !== 'swiftshader') {
  console.error(`--adapter must be llvmpipe or swiftshader, got '${adapter}'`);
  process.exit(2);
}
const steps = Number(flag('steps', '150'));
const seed = Number(flag('seed', '1'));
const preset = flag('preset', 'nano') as 'nano' | 'tiny' | 'small';
if (!Number.isInteger(steps) || steps < 1) {
  console.error(`--steps must be a positive integer, got '${flag('steps', '')}'`);
  process.exit(2);
}

const isTty = process.stdout.isTTY;
function bar(done: number, total: number, width = 30): string {
  const n = Math.round((done / total) * width);
  return `[${'#'.repeat(n)}${'.'.repeat(width - n)}]`;
}

function onEvent(e: DemoEvent): void {
  switch (e.kind) {
    case 'stage':
      if (isTty) process.stdout.write('\n');
      console.log(`== ${e.stage}${e.detail ? `: ${e.detail}` : ''}`);
      break;
    case 'check':
      console.log(`  ${e.ok ? 'ok  ' : 'FAIL'} ${e.name} (rel err ${e.relErr.toExponential(1)})`);
      break;
    case 'sft': {
      const m = e.metrics;
      const line = `  ${bar(m.step, e.totalSteps)} step ${m.step}/${e.totalSteps} loss ${m.loss.toFixed(4)} lr ${m.lr.toExponential(1)} |g| ${m.gradNorm.toFixed(2)} ${m.tokensPerSec.toFixed(0)} tok/s${m.skipped ? ' (skipped: non-finite)' : ''}`;
      if (isTty) process.stdout.write(`\r${line}`);
      else if (m.step % 5 === 0 || m.step === e.totalSteps || m.step === 1) console.log(line);
      break;
    }
    case 'eval':
      if (isTty) process.stdout.write('\n');
      console.log(`  ${e.label}: ${e.success}/${e.total} held-out tool calls exactly right`);
      break;
    case 'sample':
      console.log(`  sample from the trained model:\n${e.text.split('\n').map((l) => `    ${l}`).join('\n')}`);
      break;
    case 'done':
      break;
  }
}

async function main(): Promise<void> {
  const t0 = Date.now();
  console.log('TabForge demo — building the page…');
  const server = await startServer({ log: (l) => console.log(`  ${l}`) });
  const browser = await launchChromium({ adapter });
  try {
    const page = await browser.newPage();
    page.on('pageerror', (err) => console.error(`page error: ${err.message}`));
    await page.exposeFunction('tabforgeDemoEvent', (e: DemoEvent) => onEvent(e));
    await page.goto(`${server.url}/`);
    await page.waitForFunction(() => typeof window.tabforge !== 'undefined');
    const adapterInfo = await page.evaluate((lvl) => window.tabforge.init(lvl), featureLevelFor(adapter));
    if ('code' in adapterInfo) throw new Error(`no WebGPU device: ${adapterInfo.message}`);
    console.log(`adapter: ${adapterInfo.description}`);
    const result = (await page.evaluate(
      (o) => window.tabforge.runDemo(o, (e) => (window as unknown as { tabforgeDemoEvent: (e: unknown) => void }).tabforgeDemoEvent(e)),
      { sftSteps: steps, seed, preset },
    )) as DemoSummary | WorkerFailure;
    if ('code' in result) throw new Error(result.message);
    console.log('\n== summary');
    console.log(`  preset ${result.preset} (${result.parameters} parameters) on ${adapter}`);
    console.log(`  SFT loss ${result.firstLoss.toFixed(3)} → ${result.finalLoss.toFixed(3)}`);
    console.log(`  held-out tool calls exactly right: ${(100 * result.heldoutSuccessBefore).toFixed(0)} % before → ${(100 * result.heldoutSuccessAfter).toFixed(0)} % after SFT`);
    console.log(`  total ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  } finally {
    await browser.close();
    await server.close();
  }
}

main().catch((e: unknown) => {
  console.error(`demo failed: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
