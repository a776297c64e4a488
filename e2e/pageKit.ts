// Shared helpers of the page's e2e specs (page-*.spec.ts): a tiny pipeline that runs every stage
// in seconds on a CPU adapter, opening the page on the project's adapter, running a pipeline through
// window.tabforge, reading downloads, writing a stored run into the page's history (IndexedDB), and
// a rough screenshot comparison done in the browser (no image library needed).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, type Page, type TestInfo } from '@playwright/test';
import type { PipelineConfig } from '../src/pipeline/config';
import type { EpisodeView, PageRunEvent } from '../src/workers/runEvents';

/** nano on route4: SFT 2 steps on 8 expert conversations, test eval (with baselines), GRPO 2 × 2 tasks × G 2, test eval. */
export function tinyPipeline(over: { sftSteps?: number; grpoSteps?: number; staleness?: number; evalN?: number } = {}): PipelineConfig {
  return {
    version: 1, preset: 'nano', seed: 1, tasks: [{ family: 'function-calling', level: 'route4', weight: 1 }],
    context: { maxTotalTokens: 288, maxNewTokensPerTurn: 64, maxTurns: 1 },
    stages: [
      { kind: 'sft', data: { source: 'synthetic', examples: 8, drills: 0 }, steps: over.sftSteps ?? 2, batchSize: 2, lr: 3e-3, warmupSteps: 1, minLrRatio: 1 },
      { kind: 'eval', label: 'after SFT', split: 'test', n: over.evalN ?? 2, baselines: true },
      {
        kind: 'grpo', steps: over.grpoSteps ?? 2, tasksPerStep: 2, groupSize: 2, lr: 1e-3, warmupSteps: 1, minLrRatio: 1, klCoef: 0.1, credit: 'component',
        temperature: 1, samplingRounds: 1, evalEvery: 0, ...(over.staleness === undefined ? {} : { staleness: over.staleness }),
      },
      { kind: 'eval', label: 'after GRPO', split: 'test', n: over.evalN ?? 2, baselines: false },
    ],
  };
}

export const levelOf = (info: TestInfo) => info.project.metadata.featureLevel as string;

/** Opens the page on the project's adapter (or `query`) and waits for its GPU device; page errors fail the test. */
export async function openPage(page: Page, info: TestInfo | null, opts: { hash?: string; query?: string; waitGpu?: boolean } = {}): Promise<void> {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const query = opts.query ?? (info ? `?adapter=${levelOf(info)}` : '');
  await page.goto(`/${query}${opts.hash ?? ''}`);
  if (opts.waitGpu !== false) await expect(page.getByTestId('adapter')).toHaveAttribute('data-state', 'ready', { timeout: 120_000 });
  expect(errors).toEqual([]);
}

/** Starts a pipeline through window.tabforge (as Start would) without waiting for it. */
export async function startRun(page: Page, config: PipelineConfig, opts: { autosaveEvery?: number; samples?: number; title?: string } = {}): Promise<void> {
  await page.evaluate(([c, o]) => void window.tabforge.run(c, { autosaveEvery: o.autosaveEvery ?? 0, samples: o.samples ?? 2, title: o.title }), [config, opts] as const);
  await expect(page.getByTestId('run-controls')).toHaveAttribute('data-state', 'running');
}

/** Runs a pipeline to the end; returns its events. */
export async function runToEnd(page: Page, config: PipelineConfig, opts: { autosaveEvery?: number; samples?: number; title?: string } = {}): Promise<PageRunEvent[]> {
  const events = await page.evaluate(async ([c, o]) => {
    const seen: PageRunEvent[] = [];
    const r = await window.tabforge.run(c, { autosaveEvery: o.autosaveEvery ?? 0, samples: o.samples ?? 2, title: o.title }, (e) => seen.push(e));
    if ('code' in r) throw new Error(`run failed: ${r.message}`);
    return seen;
  }, [config, opts] as const);
  await expect(page.getByTestId('run-controls')).toHaveAttribute('data-state', 'idle');
  return events;
}

export const chartPoints = (page: Page, id: string) => page.getByTestId(id).getAttribute('data-points').then(Number);

/** A download's bytes (the page's blob URL read in the page). */
export async function downloadBytes(page: Page, click: () => Promise<void>): Promise<{ name: string; bytes: Buffer }> {
  const [download] = await Promise.all([page.waitForEvent('download'), click()]);
  const path = await download.path();
  return { name: download.suggestedFilename(), bytes: readFileSync(path) };
}

/** Puts a finished run with these episodes into the page's history (IndexedDB 'tabforge-runs'), as a past run would have left it. */
export async function storeRun(page: Page, run: { id: string; title: string; config: PipelineConfig; episodes: EpisodeView[]; events?: PageRunEvent[] }): Promise<void> {
  await page.evaluate(async (r) => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const req = indexedDB.open('tabforge-runs', 1);
      req.onupgradeneeded = () => {
        const d = req.result;
        d.createObjectStore('runs', { keyPath: 'id' });
        d.createObjectStore('events', { autoIncrement: true }).createIndex('run', 'runId');
        d.createObjectStore('episodes', { autoIncrement: true }).createIndex('run', 'runId');
      };
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
    const tx = db.transaction(['runs', 'events', 'episodes'], 'readwrite');
    tx.objectStore('runs').put({ id: r.id, createdAt: Date.now(), updatedAt: Date.now(), title: r.title, config: r.config, status: 'done', checkpointDb: null, lastSaved: null, unsavedSteps: 0, result: null, error: null, adapter: 'test' });
    for (const event of r.events ?? []) tx.objectStore('events').add({ runId: r.id, event });
    for (const episode of r.episodes) tx.objectStore('episodes').add({ runId: r.id, episode });
    await new Promise((resolve, reject) => {
      tx.oncomplete = resolve;
      tx.onerror = () => reject(tx.error);
    });
    db.close();
  }, run);
}

const BASELINES = join(dirname(fileURLToPath(import.meta.url)), 'screenshots');

/**
 * Saves a full-page screenshot of a main state and compares it roughly with the committed baseline
 * (e2e/screenshots/NAME.png): both scaled to 48 × 64 cells in the browser, mean absolute difference
 * of the grey levels ≤ `tolerance` (0 … 1). Layout or theme changes fail it; chart values and text
 * do not. Without a baseline the screenshot becomes one (and the test says so).
 */
export async function roughScreenshot(page: Page, info: TestInfo, name: string, tolerance = 0.12): Promise<number> {
  const shot = await page.screenshot({ path: info.outputPath(`${name}.png`), fullPage: false });
  const baseline = join(BASELINES, `${name}.png`);
  if (!existsSync(baseline)) {
    mkdirSync(BASELINES, { recursive: true });
    writeFileSync(baseline, shot);
    info.annotations.push({ type: 'baseline', description: `wrote ${baseline}` });
    return 0;
  }
  const diff = await page.evaluate(async ([a, b]) => {
    const grey = async (b64: string) => {
      const img = await createImageBitmap(await (await fetch(`data:image/png;base64,${b64}`)).blob());
      const c = new OffscreenCanvas(48, 64);
      const g = c.getContext('2d')!;
      g.drawImage(img, 0, 0, 48, 64);
      const d = g.getImageData(0, 0, 48, 64).data;
      return Array.from({ length: 48 * 64 }, (_, i) => (0.299 * d[4 * i] + 0.587 * d[4 * i + 1] + 0.114 * d[4 * i + 2]) / 255);
    };
    const [x, y] = await Promise.all([grey(a), grey(b)]);
    return x.reduce((s, v, i) => s + Math.abs(v - y[i]), 0) / x.length;
  }, [shot.toString('base64'), readFileSync(baseline).toString('base64')] as const);
  info.annotations.push({ type: 'screenshot', description: `${name}: mean grey difference ${diff.toFixed(3)} vs baseline (tolerance ${tolerance})` });
  expect(diff, `${name} looks different from e2e/screenshots/${name}.png (mean grey difference ${diff.toFixed(3)})`).toBeLessThanOrEqual(tolerance);
  return diff;
}
