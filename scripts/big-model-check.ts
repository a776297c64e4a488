// `npm run big-model-check -- [--adapter llvmpipe|swiftshader|both] [--layers N] [--grpo] [--folder DIR | --url URL] [--port P]`
// The full Qwen3-0.6B shape (28 layers unless --layers; seeded random weights written as a sharded
// BF16 folder by our own writer inside the GPU worker, or a real folder / URL) in headless
// Chromium: memory plan, streamed load into an f16 base, LoRA, one SFT step (and with --grpo one
// GRPO step). Prints the time of each phase and the peak GPU memory the run held, per adapter.
// Not in CI: minutes on these CPU machines (the report in the README says how many).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { type BrowserAdapter, featureLevelFor, forwardConsole, launchChromium } from './lib/browser';
import { startServer } from './lib/server';
import { integerFlag, oneOfFlag, withUsage } from '../src/util/flagValues';

const USAGE = 'usage: npm run big-model-check -- [--adapter llvmpipe|swiftshader|both] [--layers N] [--grpo] [--folder DIR | --url URL] [--port P]';

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return undefined;
  const v = process.argv[i + 1];
  if (v === undefined || v.startsWith('--')) throw new Error(`--${name} needs a value\n${USAGE}`);
  return v;
}

async function main(): Promise<void> {
  const which = withUsage(USAGE, () => oneOfFlag('adapter', flag('adapter') ?? 'both', ['llvmpipe', 'swiftshader', 'both'] as const));
  const adapters: BrowserAdapter[] = which === 'both' ? ['llvmpipe', 'swiftshader'] : [which];
  const layers = withUsage(USAGE, () => integerFlag('layers', flag('layers') ?? '28', { min: 1 }));
  const folder = flag('folder');
  const url = flag('url');
  const grpo = process.argv.includes('--grpo');
  const port = flag('port') ? Number(flag('port')) : undefined;
  const server = await startServer({ port, log: (l) => console.log(l) });
  try {
    for (const adapter of adapters) {
      const browser = await launchChromium({ adapter });
      try {
        const page = await browser.newPage();
        forwardConsole(page, `[${adapter}]`);
        await page.goto(`${server.url}/model-check.html`);
        await page.waitForFunction(() => window.modelCheck?.ready === true);
        if (folder) {
          // hand the folder's files to the page's file input (the same path a person's pick takes)
          await page.setInputFiles('#folder', readdirSync(folder).map((n) => join(folder, n)));
        }
        const t0 = Date.now();
        const log = setInterval(async () => console.log(`[${adapter}] … ${((Date.now() - t0) / 1000).toFixed(0)} s: ${(await page.locator('#log').textContent())?.trim().split('\n').at(-1)}`), 60_000);
        const source = url ? { kind: 'url' as const, base: url.replace(/\/?$/, '/') } : { kind: 'random' as const, layers, seed: 1 };
        const out = folder
          ? await page.waitForFunction(() => (document.getElementById('log')!.textContent ?? '').includes('"peakBytes"') || (document.getElementById('log')!.textContent ?? '').includes('failed ('), null, { timeout: 0 })
            .then(() => page.locator('#log').textContent())
          : await page.evaluate(({ s, l, g }) => window.modelCheck.run(s, { grpo: g, groupSize: 2, maxNewTokens: 6 }, l), { s: source, l: featureLevelFor(adapter), g: grpo });
        clearInterval(log);
        const seconds = (Date.now() - t0) / 1000;
        console.log(`\n[${adapter}] finished in ${seconds.toFixed(0)} s`);
        console.log(typeof out === 'string' ? out : JSON.stringify(out, null, 1));
      } finally {
        await browser.close();
      }
    }
  } finally {
    await server.close();
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(`big-model-check failed: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  },
);

