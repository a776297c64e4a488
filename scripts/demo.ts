// `npm run demo`: the main job, headless. Builds and serves the page, opens it in Debian's headless
// Chromium with real WebGPU (llvmpipe compatibility adapter by default: the fastest CPU adapter here;
// --adapter swiftshader for the core one), and runs the demo pipeline on the page, inside its GPU
// Worker (Comlink): kernel self-check → SFT of `nano` on the routing tool tasks → test evaluation
// with cheap baselines → GRPO → test evaluation → test episodes from the final model. By default the
// weights start from the bundled copy base (public/models/nano-copy-base: `nano` pretrained on task-free
// copy drills, src/model/bundledModels.ts), as the paper starts from a pretrained base; `--start seeded`
// starts from the preset's random init instead. Prints progress
// bars and a summary, then writes a report folder (report.html with the page's charts as PNG and test
// episodes, summary.json); the last line printed is `report: PATH`.
//   npm run demo -- [--adapter llvmpipe|swiftshader] [--steps N | --sft-steps N] [--rl-steps N]
//                   [--eval-tasks N] [--eval-before] [--skip-self-check] [--seed S] [--preset nano|tiny|small]
//                   [--start nano-copy-base|seeded] [--out DIR]
import { resolve } from 'node:path';
import type { PipelineConfig } from '../src/pipeline/config';
import type { EpisodeView, PageRunEvent, PageRunResult, WorkerFailure } from '../src/workers/runEvents';
import type { DemoRequest } from '../src/workers/gpu.worker';
import { type BrowserAdapter, featureLevelFor, launchChromium } from './lib/browser';
import { writeDemoReport } from './lib/demoReport';
import { REPO_ROOT, startServer } from './lib/server';
import { integerFlag, oneOfFlag } from '../src/util/flagValues';
import { BUNDLED_MODELS, COPY_BASE } from '../src/model/bundledModels';

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}
const has = (name: string) => process.argv.includes(`--${name}`);

/** The flag's checked value; a refusal is printed and the demo exits with status 2. */
function checked<T>(check: () => T): T {
  try {
    return check();
  } catch (e) {
    console.error((e as Error).message);
    process.exit(2);
  }
}

/** An integer flag (the first of `names` given), or undefined for the pipeline's default (DEFAULT_DEMO). */
function count(names: string[], min: number): number | undefined {
  const name = names.find(has);
  return name === undefined ? undefined : checked(() => integerFlag(name, flag(name, ''), { min }));
}

const adapter: BrowserAdapter = checked(() => oneOfFlag('adapter', flag('adapter', 'llvmpipe'), ['llvmpipe', 'swiftshader'] as const));
const preset = checked(() => oneOfFlag('preset', flag('preset', 'nano'), ['nano', 'tiny', 'small'] as const));
const startChoices = ['seeded', ...BUNDLED_MODELS.map((m) => m.id)] as const;
// the default start is the copy base for its own preset; another preset starts from its seeded init unless --start says otherwise
const start = checked(() => oneOfFlag('start', flag('start', preset === COPY_BASE.preset ? COPY_BASE.id : 'seeded'), startChoices));
const startModel = BUNDLED_MODELS.find((m) => m.id === start);
if (startModel && startModel.preset !== preset) {
  console.error(`--start ${start} has preset ${startModel.preset}'s shape, not --preset ${preset}'s: pass --start seeded for a ${preset} from its random init`);
  process.exit(2);
}
const stamp = new Date().toISOString().replace(/[:.]/g, '-').replace(/Z$/, '');
const outDir = resolve(flag('out', resolve(REPO_ROOT, 'demo-reports', stamp)));
// Only what was given: the worker fills the rest from DEFAULT_DEMO (not imported here: it pulls in the GPU code).
const given = {
  seed: count(['seed'], 0), sftSteps: count(['steps', 'sft-steps'], 0), rlSteps: count(['rl-steps'], 0), evalTasks: count(['eval-tasks'], 1),
};
const options: DemoRequest = {
  preset,
  ...Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)),
  start: startModel ? startModel.id : null,
  evalBefore: has('eval-before'),
  skipSelfCheck: has('skip-self-check'),
};

const isTty = process.stdout.isTTY;
const t0 = Date.now();
const bar = (done: number, total: number, width = 30) => {
  const n = Math.round((done / Math.max(1, total)) * width);
  return `[${'#'.repeat(n)}${'.'.repeat(width - n)}]`;
};
const pct = (x: number) => `${(100 * x).toFixed(0)} %`;

/** A progress line: rewritten in place on a terminal, printed every `every` steps otherwise. */
function progressLine(line: string, step: number, total: number, every: number): void {
  if (isTty) process.stdout.write(`\r${line}`);
  else if (step === 1 || step === total || step % every === 0) console.log(line);
}

const episodes: EpisodeView[] = [];
const log: string[] = [];

function onEvent(e: PageRunEvent): void {
  switch (e.kind) {
    case 'phase':
      if (isTty) process.stdout.write('\n');
      console.log(`== ${e.stage !== null ? `stage ${e.stage + 1}: ` : ''}${e.detail}  [${((Date.now() - t0) / 1000).toFixed(0)} s]`);
      log.push(e.detail);
      break;
    case 'check':
      console.log(`  ${e.ok ? 'ok  ' : 'FAIL'} ${e.name} (rel err ${e.relErr.toExponential(1)})`);
      break;
    case 'sft':
      progressLine(`  ${bar(e.step, e.totalSteps)} SFT ${e.step}/${e.totalSteps} loss ${e.loss.toFixed(4)} lr ${e.lr.toExponential(1)} |g| ${e.gradNorm.toFixed(2)} ${e.tokensPerSec.toFixed(0)} tok/s${e.skipped ? ' (skipped: non-finite)' : ''}`, e.step, e.totalSteps, 10);
      break;
    case 'grpo': {
      const m = e.metrics;
      const choice = m['reward/function_choice'] === undefined ? '' : ` function ${m['reward/function_choice'].toFixed(2)}`;
      progressLine(`  ${bar(e.step, e.totalSteps)} GRPO ${e.step}/${e.totalSteps} success ${pct(m.success_rate ?? 0).padStart(5)} reward ${(m.reward ?? 0).toFixed(3)}${choice} dropped ${m.groups_dropped ?? 0}/${m['sampling/groups_drawn'] ?? '?'} ${(m['rollout/tokens_per_s'] ?? 0).toFixed(0)} tok/s${e.skipped ? ' (update skipped)' : ''}`, e.step, e.totalSteps, e.totalSteps <= 50 ? 1 : 5);
      break;
    }
    case 'eval':
      if (isTty) process.stdout.write('\n');
      console.log(`  ${e.summary.headline}`);
      for (const t of e.summary.taskSets) console.log(t.table.split('\n').map((l) => `    ${l}`).join('\n'));
      break;
    case 'episodes':
      for (const x of e.episodes) if (x.source === 'sample' || x.source === 'expert') episodes.push(x);
      break;
    case 'log':
      log.push(e.line);
      break;
    default:
      break;
  }
}

function printSummary(r: PageRunResult, config: PipelineConfig): void {
  console.log('\n== summary');
  console.log(`  ${r.model} (${r.parameters.toLocaleString('en')} parameters) on ${adapter}, seed ${config.seed}`);
  for (const e of r.evals) console.log(`  ${e.label}: ${e.headline}`);
  const finals = episodes.filter((e) => e.source === 'sample');
  for (const e of finals) console.log(`  test episode ${e.taskId} from the final model: ${e.success ? 'solved' : 'not solved'}, reward ${e.reward.total.toFixed(3)}: ${e.messages.filter((m) => m.role === 'assistant').map((m) => JSON.stringify(m.content.slice(0, 120))).join(' | ')}`);
  console.log(`  time: ${r.stageSeconds.map((s, i) => `${config.stages[i].kind} ${s.toFixed(0)} s`).join(', ')}; run ${r.seconds.toFixed(0)} s, total with build and browser ${((Date.now() - t0) / 1000).toFixed(0)} s`);
}

async function main(): Promise<void> {
  console.log('TabForge demo — building the page…');
  const server = await startServer({ log: (l) => console.log(`  ${l}`) });
  const browser = await launchChromium({ adapter });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    page.on('pageerror', (err) => console.error(`page error: ${err.message}`));
    await page.exposeFunction('tabforgeDemoEvent', (e: PageRunEvent) => onEvent(e));
    await page.goto(`${server.url}/`);
    await page.waitForFunction(() => typeof window.tabforge !== 'undefined');
    const adapterInfo = await page.evaluate((lvl) => window.tabforge.init(lvl), featureLevelFor(adapter));
    if ('code' in adapterInfo) throw new Error(`no WebGPU device: ${adapterInfo.message}`);
    console.log(`adapter: ${adapterInfo.name} (${adapterInfo.featureLevel}; launched as ${adapter})`);
    const result = (await page.evaluate(
      (o) => window.tabforge.runDemo(o, (e) => (window as unknown as { tabforgeDemoEvent: (e: unknown) => void }).tabforgeDemoEvent(e)),
      options,
    )) as PageRunResult | WorkerFailure;
    if ('code' in result) throw new Error(result.message);
    const config = (await page.evaluate(() => window.tabforge.shownConfig())) as PipelineConfig;
    printSummary(result, config);
    const dir = await writeDemoReport(page, outDir, { adapter: `${adapterInfo.name} (${adapter})`, config, result, episodes, log, createdAt: new Date() });
    console.log(`report: ${dir}`);
  } finally {
    await browser.close();
    await server.close();
  }
}

main().catch((e: unknown) => {
  console.error(`demo failed: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
