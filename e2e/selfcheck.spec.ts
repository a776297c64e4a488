// The kernel self-check in a real Web Worker of real headless Chromium, on each adapter.
import { expect, test } from '@playwright/test';

test('page is cross-origin isolated (SharedArrayBuffer available)', async ({ page }) => {
  await page.goto('/');
  await page.waitForFunction(() => typeof window.tabforge !== 'undefined');
  expect(await page.evaluate(() => window.tabforge.crossOriginIsolated)).toBe(true);
});

test('GPU device in a Worker via Comlink passes the kernel self-check', async ({ page }, info) => {
  const level = info.project.metadata.featureLevel as 'core' | 'compatibility';
  await page.goto('/');
  await page.waitForFunction(() => typeof window.tabforge !== 'undefined');
  const adapter = await page.evaluate((l) => window.tabforge.init(l), level);
  expect(adapter, JSON.stringify(adapter)).not.toHaveProperty('code');
  expect(adapter).toMatchObject({ featureLevel: level });
  const results = await page.evaluate(() => window.tabforge.selfCheck());
  expect(results.length).toBeGreaterThan(0);
  const failed = results.filter((r) => !r.ok);
  expect(failed, JSON.stringify(failed, null, 1)).toEqual([]);
});
