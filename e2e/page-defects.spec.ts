// Item 7 of the page issue — each defect found by trying the page as a new user, checked here
// (the ones page.spec.ts covers are named at the end of this file).
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import { shareHash } from '../src/app/shareLink';
import { EXAMPLE_PIPELINES } from '../src/pipeline/presets';
import { episode } from '../src/app/testEvents';
import { chartPoints, levelOf, openPage, roughScreenshot, startRun, storeRun, tinyPipeline } from './pageKit';
import { ONE_ADAPTER } from './tags';

test('Stop during SFT ends the run at the next step and leaves the page consistent; a forced restart too', ONE_ADAPTER, async ({ page }, info) => {
  await openPage(page, info);
  await startRun(page, tinyPipeline({ sftSteps: 200 }));
  await expect(page.getByTestId('run-log')).toContainText('SFT step 2/200', { timeout: 180_000 });
  const t0 = Date.now();
  await page.getByTestId('stop').click();
  await expect(page.getByTestId('run-controls')).toHaveAttribute('data-state', 'idle', { timeout: 60_000 });
  info.annotations.push({ type: 'stop latency', description: `${Date.now() - t0} ms` });
  await expect(page.getByTestId('run-status')).toHaveText(/^Stopped in stage 1: during sft\. $/);
  const percent = Number((await page.getByTestId('progress-percent').textContent())!.replace(' %', ''));
  expect(percent).toBeGreaterThan(0);
  await expect(page.getByTestId('run-estimate')).toContainText('fits this adapter');
  await expect(page.getByTestId('run-estimate')).not.toContainText('fit unknown');
  await expect(page.getByTestId('model-panel')).not.toContainText('gone');
  await expect(page.getByTestId('start')).toBeEnabled();

  // a worker that does not answer in time is replaced: the adapter, the estimate and the panels stay right
  // pressed the moment the page shows the run (before the worker has it): the stop still reaches it
  expect(await page.evaluate(async (c) => {
    void window.tabforge.run(c, { autosaveEvery: 0, samples: 2 });
    const controls = document.querySelector('[data-testid=run-controls]')!;
    while (controls.getAttribute('data-state') !== 'running') await new Promise((resolve) => setTimeout(resolve, 0));
    return window.tabforge.stop(0);
  }, tinyPipeline({ sftSteps: 200 }))).toBe('restarted');
  await expect(page.getByTestId('run-controls')).toHaveAttribute('data-state', 'idle');
  await expect(page.getByTestId('adapter')).toHaveAttribute('data-state', 'ready');
  await expect(page.getByTestId('run-status')).toHaveText(/^Stopped/);
  await expect(page.getByTestId('run-estimate')).toContainText('fits this adapter');
  await expect(page.getByTestId('model-panel')).not.toContainText('gone');
  await expect(page.getByTestId('start')).toBeEnabled();
});

test('an autostart link leaves the address bar without autostart; Copy share link is off during a run and never rewrites the address', async ({ page }, info) => {
  await openPage(page, info, { hash: shareHash(tinyPipeline({ sftSteps: 30 }), { autostart: true }) });
  await expect(page.getByTestId('run-controls')).toHaveAttribute('data-state', 'running');
  expect(new URL(page.url()).hash).toMatch(/^#pipeline=[A-Za-z0-9_-]+$/);
  await expect(page.getByTestId('share')).toBeDisabled();
  await page.getByTestId('stop').click();
  await expect(page.getByTestId('run-controls')).toHaveAttribute('data-state', 'idle', { timeout: 60_000 });
  const before = page.url();
  await page.getByTestId('share').click();
  await expect(page.getByTestId('share-url')).toHaveValue(/#pipeline=/);
  expect(page.url()).toBe(before);
  await page.reload(); // no autostart in the address: the reload does not start the run again
  await expect(page.getByTestId('adapter')).toHaveAttribute('data-state', 'ready', { timeout: 120_000 });
  await page.waitForTimeout(500);
  await expect(page.getByTestId('run-controls')).toHaveAttribute('data-state', 'idle');
});

test('an autostart link for a very long run waits for Start and says why', async ({ page }, info) => {
  const big = tinyPipeline({ sftSteps: 1_000_000 });
  await openPage(page, info, { hash: shareHash(big, { autostart: true }) });
  await expect(page.getByTestId('run-status')).toHaveText(/^This link asks for a long run \(preset nano, SFT 1000000 steps .*\)\. It was not started on its own: check the settings and press Start\.$/);
  await expect(page.locator('#pf-stages-0-steps')).toHaveValue('1000000');
  await expect(page.getByTestId('start')).toBeEnabled();
  await page.waitForTimeout(500);
  await expect(page.getByTestId('run-controls')).toHaveAttribute('data-state', 'idle'); // still not started
});

test('a model URL that answers with a web page says so, without file-picker advice', async ({ page }, info) => {
  await openPage(page, info, { waitGpu: false });
  await page.route('**/not-a-model/**', (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><html><body>Welcome</body></html>' }));
  await page.getByTestId('model-url').fill(`${new URL(page.url()).origin}/not-a-model/`);
  await page.getByTestId('model-url-load').click();
  const box = page.getByTestId('error-box');
  await expect(box).toContainText(/Load model: .*\/not-a-model\/config\.json answered with a web page \(text\/html\), not the model's config\.json: the URL is probably not the folder/);
  await expect(box).not.toContainText('pick the model');
});

test("a degenerate sample (64 newlines, cut at the token limit) shows as a marker, and the model's transcript has its system prompt", async ({ page }, info) => {
  const blank = episode({
    source: 'sample', stage: -1, step: 0, label: 'final model', taskId: 'route4-test-1-0',
    messages: [{ role: 'system', content: 'You can call: weather(city)…' }, { role: 'user', content: 'weather in Quito?' }, { role: 'assistant', content: '\n'.repeat(64) }],
    turns: [{ tokens: 64, hitTokenLimit: true, totalAfter: 0 }], reward: { total: 0, components: { exact_match: 0 } }, success: false, truncated: true, end: 'max-tokens',
  });
  await openPage(page, info, { waitGpu: false });
  await storeRun(page, { id: 'run-blank', title: 'blank sample', config: EXAMPLE_PIPELINES[0].config, episodes: [blank] });
  await page.reload();
  const e = page.getByTestId('trajectory-panel').getByTestId('episode');
  await expect(e.locator('summary')).toContainText('token limit');
  await e.locator('summary').click();
  const assistant = e.locator('.msg[data-role=assistant]');
  await expect(assistant.locator('.blank-run')).toHaveText('↵ × 64');
  await expect(assistant.getByTestId('token-limit')).toHaveText('token limit hit: the turn was cut');
  expect((await assistant.boundingBox())!.height).toBeLessThan(120);
  await expect(e.locator('details[data-role=system] summary')).toHaveText('system prompt and tools (28 characters)');
  await expect(e.getByText('stopped: episode token limit')).toBeVisible();
});

test('the dark theme follows the switch and is remembered; no serious accessibility violations (axe) in either theme', ONE_ADAPTER, async ({ page }, info) => {
  await openPage(page, info, { waitGpu: false });
  const serious = async () => (await new AxeBuilder({ page }).analyze()).violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`);
  expect(await serious()).toEqual([]);
  await roughScreenshot(page, info, 'page-light');
  await page.getByTestId('theme').click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await expect(page.getByTestId('theme')).toHaveAttribute('aria-pressed', 'true');
  expect(await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--bg').trim())).toBe('#14171c');
  expect(await serious()).toEqual([]);
  await page.reload();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await roughScreenshot(page, info, 'page-dark');
});

test('a lost GPU device: the page says what happened and offers to resume from the last checkpoint', ONE_ADAPTER, async ({ page }, info) => {
  await openPage(page, info);
  await startRun(page, tinyPipeline({ sftSteps: 10 }), { autosaveEvery: 2, title: 'device loss' });
  await expect(page.getByTestId('run-log')).toContainText('checkpoint saved after stage 1 step 2', { timeout: 180_000 });
  expect(await page.evaluate(() => window.tabforge.loseDevice())).toBe(true);
  const notice = page.getByTestId('notice-device');
  await expect(notice).toContainText(/^The GPU device was lost( \([^)]*\))? in stage 1, so the run stopped; its last checkpoint \(stage 1, step \d+\) can resume it\. A new device is being acquired\./, { timeout: 60_000 });
  await expect(notice).not.toContainText('reload the page');
  await expect(page.getByTestId('adapter')).toHaveAttribute('data-state', 'ready', { timeout: 60_000 });
  await expect(page.getByTestId('history-run').first()).toHaveAttribute('data-status', 'interrupted');
  await page.getByTestId('resume-device').click();
  await expect(page.getByTestId('run-log')).toContainText('resumed from checkpoint', { timeout: 60_000 });
  await expect(page.getByTestId('run-controls')).toHaveAttribute('data-state', 'idle', { timeout: 240_000 });
  expect(await chartPoints(page, 'chart-sft-loss')).toBe(10);
  await expect(page.getByTestId('history-run').first()).toHaveAttribute('data-status', 'done');
  info.annotations.push({ type: 'adapter', description: levelOf(info) });
});

// Covered in page.spec.ts: nothing explained, no time estimate, the frozen-looking first SFT step and
// the SFT-free run log; only routing tasks and the adapter header; chart series, legends and the
// table view; a reload keeps nothing and no leave-page warning; a second tab shows "Ready.".
// Contrast and screen-reader access: the axe scan above (the charts' values: their table views).
