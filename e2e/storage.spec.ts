// Checkpoints in real IndexedDB in headless Chromium (src/app/storage-test.html): a save cut off by
// closing the page or the whole browser, storage full (a small quota set through the DevTools
// protocol), a flipped byte; the export zip; the ONNX decoder on onnxruntime-web's WebGPU EP.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, expect, type Page, test, type TestInfo } from '@playwright/test';

async function open(page: Page): Promise<void> {
  await page.goto('/storage-test.html');
  await page.waitForFunction(() => window.storageTest?.ready === true);
}

/** Starts a slow save (many small chunks) and waits until `chunks` of them are stored. */
async function startSaveAndWait(page: Page, id: string, chunks: number): Promise<void> {
  await page.evaluate((i) => window.storageTest.startSave(i, 2, 24, 256, 25), id); // 24 MB in 256 KiB chunks, 25 ms each
  await page.waitForFunction((n) => window.storageTest.chunksWritten >= n, chunks);
}

async function expectRecovered(page: Page): Promise<void> {
  expect(await page.evaluate(() => window.storageTest.listing())).toEqual({ complete: ['old'], unfinished: [{ id: 'new', chunks: expect.any(Number) }] });
  const latest = await page.evaluate(() => window.storageTest.loadLatest());
  expect(latest).toMatchObject({ id: 'old', step: 1, unfinished: ['new'], verified: true });
  expect(await page.evaluate(() => window.storageTest.listing())).toEqual({ complete: ['old'], unfinished: [] }); // cleaned up
}

test('page closed in the middle of a save: the previous checkpoint loads intact, the partial one is reported and cleaned', async ({ context }) => {
  const page = await context.newPage();
  await open(page);
  expect(await page.evaluate(() => window.storageTest.save('old', 1, 2))).toMatchObject({ ok: true });
  await startSaveAndWait(page, 'new', 8);
  await page.close();
  const again = await context.newPage();
  await open(again);
  await expectRecovered(again);
});

/** A browser with a real profile folder (a restart keeps its IndexedDB; CDP quota overrides apply, unlike in incognito contexts). */
async function withProfile(testInfo: TestInfo, body: (launch: () => Promise<BrowserContext>) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'tabforge-profile-'));
  const { launchOptions, baseURL } = testInfo.project.use as { launchOptions: Parameters<typeof chromium.launchPersistentContext>[1]; baseURL: string };
  const opened: BrowserContext[] = [];
  try {
    await body(async () => {
      const ctx = await chromium.launchPersistentContext(dir, { ...launchOptions, baseURL });
      opened.push(ctx);
      return ctx;
    });
  } finally {
    for (const ctx of opened) await ctx.close().catch(() => {});
    await rm(dir, { recursive: true, force: true });
  }
}

test('browser closed in the middle of a save: same after a restart', async ({}, testInfo) => {
  await withProfile(testInfo, async (launch) => {
    const ctx = await launch();
    const page = await ctx.newPage();
    await open(page);
    expect(await page.evaluate(() => window.storageTest.save('old', 1, 2))).toMatchObject({ ok: true });
    await startSaveAndWait(page, 'new', 8);
    await ctx.close(); // the whole browser goes away mid-save
    const page2 = await (await launch()).newPage();
    await open(page2);
    await expectRecovered(page2);
  });
});

test('storage full: a clear error, older checkpoints intact, nothing half-written; saving works again with room', async ({}, testInfo) => {
  await withProfile(testInfo, async (launch) => {
    const page = await (await launch()).newPage();
    await open(page);
    // Chromium caches the space left for a few seconds, so the small quota is set before any write
    const cdp = await page.context().newCDPSession(page);
    const origin = new URL(page.url()).origin;
    const { usage } = await cdp.send('Storage.getUsageAndQuota', { origin });
    await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: usage + 6_000_000 });
    expect(await page.evaluate(() => window.storageTest.save('old', 1, 2))).toMatchObject({ ok: true });
    const full = await page.evaluate(() => window.storageTest.save('big', 2, 12));
    expect(full).toMatchObject({ ok: false, kind: 'storage-full' });
    expect((full as { message: string }).message).toMatch(/^checkpoint 'big' was not saved: IndexedDB 'tabforge-e2e-checkpoints' is full.*; this checkpoint needs 12\.0 MB\. Older checkpoints are intact and nothing of it was kept\. Delete old checkpoints/);
    expect(await page.evaluate(() => window.storageTest.listing())).toEqual({ complete: ['old'], unfinished: [] });
    expect(await page.evaluate(() => window.storageTest.loadLatest())).toMatchObject({ id: 'old', verified: true });
    expect((await cdp.send('Storage.getUsageAndQuota', { origin })).usage).toBeLessThan(usage + 3_000_000); // 'old' only: the partial chunks are gone
    await cdp.send('Storage.overrideQuotaForOrigin', { origin }); // the user makes room: saving works again
    expect(await page.evaluate(() => window.storageTest.save('big', 2, 12))).toMatchObject({ ok: true });
  });
});

test('a flipped byte is refused naming the tensor and the checksum mismatch', async ({ page }) => {
  await open(page);
  await page.evaluate(() => window.storageTest.save('x', 3, 3, { chunkKiB: 256 }));
  await page.evaluate(() => window.storageTest.flipByte('x', 'adam.m', 'model.embed_tokens.weight', 1, 100));
  const r = await page.evaluate(() => window.storageTest.load('x', 'adam.m', 'model.embed_tokens.weight'));
  expect(r).toMatchObject({ ok: false, kind: 'corrupt' });
  expect((r as { message: string }).message).toMatch(/checkpoint 'x': tensor 'model\.embed_tokens\.weight' \(adam\.m, F32 \[250000\]\), chunk 2 of 4, fails its checksum \(SHA-256 [0-9a-f]{16}… ≠ [0-9a-f]{16}…/);
  expect(await page.evaluate(() => window.storageTest.load('x', 'model', 'model.embed_tokens.weight'))).toMatchObject({ ok: true, length: 250000 });
  expect((await page.evaluate(() => window.storageTest.loadLatest())).verified).toMatchObject({ kind: 'corrupt' });
});

test('export zip round trip in the page; storage usage and persistence are reported', async ({ page }) => {
  await open(page);
  expect(await page.evaluate(() => window.storageTest.zipRoundTrip())).toMatchObject({ same: true });
  await page.evaluate(() => window.storageTest.persist()); // headless may refuse; it must not throw
  const status = await page.evaluate(() => window.storageTest.status());
  expect(status.quotaBytes).toBeGreaterThan(0);
  expect(status.summary).toMatch(/MB of .* used/);
});

test('the exported ONNX decoder on onnxruntime-web WebGPU matches our logits within 1e-3 (nano, tiny)', async ({ page }, testInfo) => {
  await open(page);
  const level = (testInfo.project.metadata as { featureLevel: 'core' | 'compatibility' }).featureLevel;
  for (const preset of ['nano', 'tiny'] as const) {
    const r = await page.evaluate(([p, l]) => window.storageTest.onnxWebgpu(p, l), [preset, level] as const);
    expect(r.dims).toEqual([1, 9, 272]);
    expect(r.relErr, `${preset}: ${r.relErr}`).toBeLessThan(1e-3);
  }
});
