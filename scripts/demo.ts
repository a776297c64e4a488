// `npm run demo`: the main job, headless. Builds and serves the page, opens it in Debian's
// headless Chromium with real WebGPU (llvmpipe compatibility adapter by default: the fastest CPU
// adapter here; --adapter swiftshader for the core one), and runs the demo pipeline inside the
// page's GPU Worker (Comlink): kernel self-check → format-only SFT of `nano` on the routing tool
// tasks → held-out eval → GRPO → held-out eval → one held-out episode from the final model. Prints
// progress bars (SFT loss; GRPO success and reward), the evaluations and a summary with the rates.
//   npm run demo -- [--adapter llvmpipe|swiftshader] [--steps N | --sft-steps N] [--rl-steps N]
//                   [--eval-tasks N] [--eval-before] [--skip-self-check] [--seed S] [--preset nano|tiny|small]
import type { DemoEvent, DemoOptions, DemoSummary, GrpoProgress } from '../src/pipeline/demoPipeline';
import type { WorkerFailure } from '../src/workers/gpu.worker';
import { type BrowserAdapter, featureLevelFor, launchChromium } from './lib/browser';
import { startServer } from './lib/server';

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}
const has = (name: string) => process.argv.includes(`--${name}`);

/** An integer flag (the first of `names` given), or undefined for the pipeline's default (DEFAULT_DEMO). */
function count(names: string[], min: number): number | undefined {
  const name = names.find(has);
  if (!name) return undefined;
  const text = flag(name, '');
  const n = Number(text);
  if (text === '' || !Number.isInteger(n) || n < min) {
    console.error(`--${name} must be an integer ≥ ${min}, got '${text}'`);
    process.exit(2);
  }
  return n;
}

const adapter = flag('adapter', 'llvmpipe') as BrowserAdapter;
if (adapter !== 'llvmpipe' && adapter !== 'swiftshader') {
  console.error(`--adapter must be llvmpipe or swiftshader, got '${adapter}'`);
  process.exit(2);
}
const preset = flag('preset', 'nano') as 'nano' | 'tiny' | 'small';
if (!['nano', 'tiny', 'small'].includes(preset)) {
  console.error(`--preset must be nano, tiny or small, got '${preset}'`);
  process.exit(2);
}
// Only what was given: the worker fills the rest from DEFAULT_DEMO (not imported here: it pulls in the GPU code).
const given = {
  seed: count(['seed'], 0), sftSteps: count(['steps', 'sft-steps'], 0), rlSteps: count(['rl-steps'], 0), evalTasks: count(['eval-tasks'], 1),
};
const options: Partial<DemoOptions> = {
  preset,
  ...Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)),
  evalBefore: has('eval-before'),
  skipSelfCheck: has('skip-self-check'),
};

const isTty = process.stdout.isTTY;
function bar(done: number, total: number, width = 30): string {
  const n = Math.round((done / Math.max(1, total)) * width);
  return `[${'#'.repeat(n)}${'.'.repeat(width - n)}]`;
}

const pct = (x: number) => `${(100 * x).toFixed(0)} %`;
const round2 = (o: Record<string, number>) => Object.entries(o).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(', ');
/** Wall time of each stage as the events show it (the summary has the worker's own numbers too). */
const t0 = Date.now();
let stageStart = Date.now();

/** A progress line: rewritten in place on a terminal, printed every `every` steps otherwise. */
function progressLine(line: string, step: number, total: number, every: number): void {
  if (isTty) process.stdout.write(`\r${line}`);
  else if (step === 1 || step === total || step % every === 0) console.log(line);
}

function grpoLine(g: GrpoProgress): string {
  const choice = g.components.function_choice === undefined ? '' : ` function ${g.components.function_choice.toFixed(2)}`;
  return `  ${bar(g.step, g.totalSteps)} GRPO ${g.step}/${g.totalSteps} success ${pct(g.successRate).padStart(5)} reward ${g.reward.toFixed(3)}${choice}`
    + ` dropped ${g.groupsDropped}/${g.groups} ${g.rolloutTokensPerSec.toFixed(0)} tok/s${g.skipped ? ' (update skipped)' : ''}`;
}

function onEvent(e: DemoEvent): void {
  switch (e.kind) {
    case 'stage':
      if (isTty) process.stdout.write('\n');
      console.log(`== ${e.stage}${e.detail ? `: ${e.detail}` : ''}  [${((Date.now() - t0) / 1000).toFixed(0)} s]`);
      stageStart = Date.now();
      break;
    case 'check':
      console.log(`  ${e.ok ? 'ok  ' : 'FAIL'} ${e.name} (rel err ${e.relErr.toExponential(1)})`);
      break;
    case 'sft': {
      const m = e.metrics;
      const line = `  ${bar(m.step, e.totalSteps)} SFT ${m.step}/${e.totalSteps} loss ${m.loss.toFixed(4)} lr ${m.lr.toExponential(1)} |g| ${m.gradNorm.toFixed(2)} ${m.tokensPerSec.toFixed(0)} tok/s${m.skipped ? ' (skipped: non-finite)' : ''}`;
      progressLine(line, m.step, e.totalSteps, 10);
      break;
    }
    case 'grpo':
      progressLine(grpoLine(e.progress), e.progress.step, e.progress.totalSteps, e.progress.totalSteps <= 50 ? 1 : 5);
      break;
    case 'eval': {
      if (isTty) process.stdout.write('\n');
      const [lo, hi] = e.interval;
      console.log(`  ${e.label}: ${e.success}/${e.total} test tasks solved, whole call right (${pct(e.success / e.total)}, 95 % CI ${pct(lo)}–${pct(hi)}), reward ${e.reward.toFixed(3)} (${round2(e.components)})  [${((Date.now() - stageStart) / 1000).toFixed(0)} s]`);
      const tools = Object.entries(e.byKey).map(([k, r]) => `${k} ${r.successes}/${r.n}`).join(', ');
      if (tools) console.log(`    per tool: ${tools}`);
      const base = Object.entries(e.baselines).map(([k, r]) => `${k} ${pct(r)}`).join(', ');
      if (base) console.log(`    cheap baselines on the same test tasks: ${base}`);
      break;
    }
    case 'sample':
      console.log(`  test episode from the final model (${e.success ? 'solved' : 'not solved'}):\n${e.text.split('\n').map((l) => `    ${l}`).join('\n')}`);
      break;
    case 'done':
      break;
  }
}

function printSummary(s: DemoSummary): void {
  const rates = s.evals.map((e) => `${pct(e.success / e.total)} [${pct(e.interval[0])}–${pct(e.interval[1])}] ${e.label}`);
  const baselines = s.evals.find((e) => Object.keys(e.baselines).length > 0)?.baselines ?? {};
  const t = s.stageSeconds;
  console.log('\n== summary');
  console.log(`  ${s.model} (${s.parameters.toLocaleString('en')} parameters) on ${adapter}`);
  console.log(`  SFT loss ${s.firstLoss.toFixed(3)} → ${s.finalLoss.toFixed(3)}; final GRPO reward ${Number.isFinite(s.finalReward) ? s.finalReward.toFixed(3) : 'n/a'}`);
  console.log(`  test success on ${s.taskSet} (the whole call right; ${s.evalTasks} test tasks, values and phrasings never trained on; 95 % CI): ${rates.join(' → ')}`);
  console.log(`  cheap baselines on the same test tasks: ${Object.entries(baselines).map(([k, r]) => `${k} ${pct(r)}`).join(', ') || 'n/a'}`);
  console.log(`  time: self-check ${t.selfCheck.toFixed(0)} s, SFT ${t.sft.toFixed(0)} s, GRPO ${t.grpo.toFixed(0)} s, eval ${t.eval.toFixed(0)} s; run ${s.seconds.toFixed(0)} s, total with build and browser ${((Date.now() - t0) / 1000).toFixed(0)} s`);
}

async function main(): Promise<void> {
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
      options,
    )) as DemoSummary | WorkerFailure;
    if ('code' in result) throw new Error(result.message);
    printSummary(result);
  } finally {
    await browser.close();
    await server.close();
  }
}

main().catch((e: unknown) => {
  console.error(`demo failed: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
