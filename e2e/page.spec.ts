// The TabForge page in real headless Chromium on each CPU adapter: a quick nano run of the whole
// pipeline driven through the form (progress, live SFT loss and GRPO charts, held-out success after
// SFT and after GRPO, summary, sample), Stop, share links, and loading a tiny HF-layout model
// (written here with our own safetensors writer) from files, a folder and a URL.
import { mkdirSync, writeFileSync } from 'node:fs';
import { expect, type Page, test } from '@playwright/test';
import { modelToSafetensors } from '../src/model/checkpointIO';
import { BYTE_VOCAB_SIZE, type ModelConfig } from '../src/model/config';
import { countParameters, parameterTable } from '../src/model/parameters';
import { DEFAULT_RUN_CONFIG, type RunConfig } from '../src/app/runConfig';
import { shareHash, toBase64Url } from '../src/app/shareLink';
import { CHROMIUM_PATH } from '../scripts/lib/browser';

/** One layer, hidden 32, untied LM head: 26 k parameters, trains a step in seconds on a CPU adapter. */
const TINY: ModelConfig = {
  vocabSize: BYTE_VOCAB_SIZE, hiddenSize: 32, intermediateSize: 64, numLayers: 1, numHeads: 2, numKvHeads: 1, headDim: 16,
  rmsNormEps: 1e-6, ropeTheta: 10000, maxPositionEmbeddings: 512, tieWordEmbeddings: false, tokenizer: 'byte',
};

/**
 * Weights whose loss is known in closed form, far from a random init's ≈ ln V: every token embeds
 * to ones, attention and MLP are zero (the residual stays ones, the final norm keeps it), and the
 * LM head's row 0 sums to 10, the others to 0. Every position's logits are then (10, 0, …, 0), and
 * no target is token 0 (a NUL byte), so every target's loss is ln(V - 1 + e^10).
 */
function knownLossModel(cfg: ModelConfig): { configJson: string; safetensors: Uint8Array } {
  const C = cfg.hiddenSize;
  const params = new Map(parameterTable(cfg).map((p) => {
    const v = new Float32Array(p.shape.reduce((a, b) => a * b, 1));
    if (p.kind === 'norm' || p.name === 'model.embed_tokens.weight') v.fill(1);
    if (p.name === 'lm_head.weight') v.fill(10 / C, 0, C);
    return [p.name, v] as const;
  }));
  return modelToSafetensors(cfg, params);
}
const KNOWN_FIRST_LOSS = Math.log(BYTE_VOCAB_SIZE - 1 + Math.exp(10)); // 10.0122

async function openPage(page: Page, level: string, hash = ''): Promise<void> {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`/?adapter=${level}${hash}`);
  await expect(page.getByTestId('adapter')).toHaveAttribute('data-state', 'ready', { timeout: 60_000 });
  expect(errors).toEqual([]);
}

const levelOf = (info: { project: { metadata: Record<string, unknown> } }) => info.project.metadata.featureLevel as string;
const chartPoints = (page: Page, chart = 'loss-chart') => page.getByTestId(chart).getAttribute('data-points').then(Number);

/** Small stage sizes for runs from the form (the quick box only shrinks the evaluation and skips the self-check). */
async function fillQuickRun(page: Page, sftSteps: number, rlSteps: number): Promise<void> {
  await page.fill('#cfg-sftSteps', String(sftSteps));
  await page.fill('#cfg-rlSteps', String(rlSteps));
  await page.fill('#cfg-tasksPerStep', '2');
  await page.fill('#cfg-groupSize', '4');
  await page.check('#cfg-quick');
}

test('a quick nano run from the form: progress, live SFT and GRPO charts, success rates, summary and sample', async ({ page }, info) => {
  await openPage(page, levelOf(info));
  await expect(page.getByTestId('error-box')).toBeHidden();
  await fillQuickRun(page, 2, 2);
  await page.getByTestId('start').click();
  await expect(page.getByTestId('run-controls')).toHaveAttribute('data-state', 'running');
  await expect(page.getByTestId('start')).toBeDisabled();

  // Mid-run: the first SFT step is on the chart and the bar is part-way.
  await expect.poll(() => chartPoints(page), { timeout: 120_000 }).toBeGreaterThanOrEqual(1);
  const mid = await page.getByTestId('progress').evaluate((el) => (el as HTMLProgressElement).value);
  expect(mid).toBeGreaterThan(0.1);
  expect(mid).toBeLessThan(1);
  await page.screenshot({ path: info.outputPath('during-run.png'), fullPage: true });

  // Then GRPO: its chart gets a point per step.
  await expect.poll(() => chartPoints(page, 'grpo-chart'), { timeout: 180_000 }).toBeGreaterThanOrEqual(1);

  await expect(page.getByTestId('summary')).toBeVisible({ timeout: 180_000 });
  expect(await chartPoints(page)).toBe(2);
  expect(await chartPoints(page, 'grpo-chart')).toBe(2);
  await expect(page.getByTestId('progress-percent')).toHaveText('100 %');
  await expect(page.getByTestId('summary')).toContainText('preset nano');
  await expect(page.getByTestId('summary')).toContainText('432,672');
  await expect(page.getByTestId('summary').locator('dt:text-is("Held-out success") + dd')).toHaveText(/^\d+ % after SFT → \d+ % after GRPO \(4 tasks\)$/);
  await expect(page.getByTestId('summary').locator('dt:text-is("Final GRPO reward") + dd')).toHaveText(/^-?\d\.\d{3}$/);
  await expect(page.getByTestId('evals').locator('li')).toHaveCount(2);
  await expect(page.getByTestId('evals').locator('li').first()).toContainText(/after SFT.*\d\/4 held-out tasks solved/);
  await expect(page.getByTestId('evals').locator('li').last()).toContainText(/after GRPO.*\d\/4 held-out tasks solved/);
  await expect(page.getByTestId('sample-model').locator('[data-role=user]')).toContainText('?');
  await expect(page.getByTestId('sample-model').locator('[data-role=assistant]')).toHaveCount(1);
  // The expert reference shows every role, its call highlighted and parsed.
  await expect(page.getByTestId('sample-reference').locator('[data-role=tool]')).toHaveCount(1);
  await expect(page.getByTestId('sample-reference').getByTestId('tool-call')).toContainText('✓');
  await expect(page.getByTestId('error-box')).toBeHidden();
  await expect(page.getByTestId('run-controls')).toHaveAttribute('data-state', 'idle');
  await page.screenshot({ path: info.outputPath('after-run.png'), fullPage: true });
});

test('an autostart link starts a run, Stop ends it (politely or by restarting the worker), and worker errors are shown', async ({ page }, info) => {
  const config: RunConfig = { ...DEFAULT_RUN_CONFIG, sftSteps: 50, quick: true };
  await openPage(page, levelOf(info), shareHash(config, { autostart: true }));
  await expect(page.getByTestId('run-controls')).toHaveAttribute('data-state', 'running');
  await page.getByTestId('stop').click();
  await expect(page.getByTestId('run-status')).toHaveText(/^Stopped/, { timeout: 60_000 });
  await expect(page.getByTestId('run-controls')).toHaveAttribute('data-state', 'idle');
  await expect(page.getByTestId('error-box')).toBeHidden();

  // A worker that does not stop in time is replaced by a fresh one on the same adapter.
  await page.evaluate(() => void window.tabforge.runDemo({ quick: true, sftSteps: 50 }));
  await expect(page.getByTestId('run-controls')).toHaveAttribute('data-state', 'running');
  expect(await page.evaluate(() => window.tabforge.stop(0))).toBe('restarted');
  await expect(page.getByTestId('run-status')).toHaveText('Stopped: the GPU worker did not stop within 0 s and was restarted.');
  await expect(page.getByTestId('adapter')).toHaveAttribute('data-state', 'ready');
  await expect(page.getByTestId('run-controls')).toHaveAttribute('data-state', 'idle');

  // The (new) worker refuses what it cannot train (here a preset that needs the Qwen3 tokenizer): its message is shown.
  const refused = await page.evaluate(() => window.tabforge.runDemo({ quick: true, preset: 'qwen3-0.6b' }));
  expect(refused).toMatchObject({ code: 'error' });
  await expect(page.getByTestId('error-box')).toContainText(/Run: demo: preset 'qwen3-0.6b' needs the Qwen3 tokenizer/);
  await expect(page.getByTestId('run-status')).toHaveText(/Failed/);
  await expect(page.getByTestId('start')).toBeEnabled();

  // The page estimates the recipe's training memory on this adapter before a run.
  await page.selectOption('#cfg-preset', 'small');
  await expect(page.getByTestId('run-estimate')).toHaveAttribute('data-ok', 'true');
  await expect(page.getByTestId('run-estimate')).toContainText(/preset small, .* parameters: training at batch 8 × 288 tokens needs/);
});

test('an autostart link for a very long run waits for Start and says why', async ({ page }, info) => {
  const max: RunConfig = { preset: 'small', seed: 3, sftSteps: 100_000, rlSteps: 100_000, tasksPerStep: 256, groupSize: 64, quick: false };
  await openPage(page, levelOf(info), shareHash(max, { autostart: true }));
  await expect(page.getByTestId('run-status')).toHaveText(/^This link asks for a long run \(preset small, .*\)\. It was not started on its own: check the settings and press Start\.$/);
  await expect(page.getByTestId('run-controls')).toHaveAttribute('data-state', 'idle');
  await expect(page.locator('#cfg-rlSteps')).toHaveValue('100000');
  await expect(page.getByTestId('start')).toBeEnabled();
  await page.waitForTimeout(500);
  await expect(page.getByTestId('run-controls')).toHaveAttribute('data-state', 'idle'); // still not started
});

test('share links: a link fills the form, the page makes links, bad links and bad fields say why', async ({ page }, info) => {
  const config: RunConfig = { preset: 'tiny', seed: 7, sftSteps: 5, rlSteps: 3, tasksPerStep: 2, groupSize: 6, quick: true };
  await openPage(page, levelOf(info), shareHash(config));
  await expect(page.locator('#cfg-preset')).toHaveValue('tiny');
  await expect(page.locator('#cfg-seed')).toHaveValue('7');
  await expect(page.locator('#cfg-sftSteps')).toHaveValue('5');
  await expect(page.locator('#cfg-rlSteps')).toHaveValue('3');
  await expect(page.locator('#cfg-tasksPerStep')).toHaveValue('2');
  await expect(page.locator('#cfg-groupSize')).toHaveValue('6');
  await expect(page.locator('#cfg-quick')).toBeChecked();
  await expect(page.getByTestId('run-controls')).toHaveAttribute('data-state', 'idle'); // no autostart

  // Edit, make a link, open it in a fresh page: the form shows the edit.
  await page.fill('#cfg-seed', '99');
  await page.getByTestId('share').click();
  const url = await page.getByTestId('share-url').inputValue();
  expect(url).toContain('#config=');
  const fresh = await page.context().newPage();
  await fresh.goto(url);
  await expect(fresh.locator('#cfg-seed')).toHaveValue('99');
  await expect(fresh.locator('#cfg-preset')).toHaveValue('tiny');
  await fresh.close();

  // A field the schema rejects: the message sits next to the field and Start is off.
  await page.fill('#cfg-rlSteps', '3x');
  await expect(page.getByTestId('error-rlSteps')).toHaveText('GRPO steps must be a number');
  await page.fill('#cfg-groupSize', '1');
  await expect(page.getByTestId('error-groupSize')).toHaveText('Group size must be at least 2');
  await expect(page.getByTestId('start')).toBeDisabled();

  // A broken link: a clear error, and the defaults in the form.
  await page.goto(`/?adapter=${levelOf(info)}#config=${toBase64Url('{"preset":"huge"}')}&autostart=1`);
  await page.reload();
  await expect(page.getByTestId('error-box')).toContainText(/Share link: .*preset must be one of nano, tiny, small.*defaults/);
  await expect(page.locator('#cfg-preset')).toHaveValue('nano');
  await expect(page.locator('#cfg-sftSteps')).toHaveValue(String(DEFAULT_RUN_CONFIG.sftSteps));
  await expect(page.getByTestId('adapter')).toHaveAttribute('data-state', 'ready', { timeout: 60_000 });
  await expect(page.getByTestId('run-controls')).toHaveAttribute('data-state', 'idle');
});

test('loading a tiny model: files, folder and URL stream to 100 %, show the parameter count, and a run starts from it', async ({ page }, info) => {
  const { configJson, safetensors } = knownLossModel(TINY);
  const parameters = countParameters(TINY).toLocaleString('en');
  await openPage(page, levelOf(info));

  // Picked files.
  await page.getByTestId('model-files').setInputFiles([
    { name: 'config.json', mimeType: 'application/json', buffer: Buffer.from(configJson) },
    { name: 'model.safetensors', mimeType: 'application/octet-stream', buffer: Buffer.from(safetensors) },
  ]);
  await expect(page.getByTestId('model-params')).toContainText(parameters);
  await expect(page.getByTestId('model-progress-text')).toHaveText(/reading tensors: .* \(100 %\) · loaded/);
  await expect(page.getByTestId('model-fit')).toHaveAttribute('data-ok', 'true');
  await expect(page.getByTestId('use-loaded')).toBeChecked();
  await page.screenshot({ path: info.outputPath('model-loaded.png'), fullPage: true });

  // A folder (webkitdirectory) with extra files in it.
  const dir = info.outputPath('tiny-model');
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}/config.json`, configJson);
  writeFileSync(`${dir}/model.safetensors`, safetensors);
  writeFileSync(`${dir}/README.md`, '# tiny\n');
  await page.getByTestId('model-folder').setInputFiles(dir);
  await expect(page.getByTestId('model-progress-text')).toHaveText(/reading tensors: .* \(100 %\) · loaded/);
  await expect(page.getByTestId('model-info')).toContainText('tiny-model/model.safetensors');

  // A URL base, served by the test.
  await page.route('**/test-models/tiny/*', (route) => {
    const name = new URL(route.request().url()).pathname.split('/').pop();
    if (name === 'config.json') return route.fulfill({ body: configJson, contentType: 'application/json' });
    if (name === 'model.safetensors') return route.fulfill({ body: Buffer.from(safetensors), contentType: 'application/octet-stream' });
    return route.fulfill({ status: 404 });
  });
  await page.getByTestId('model-url').fill('/test-models/tiny/config.json');
  await page.getByTestId('model-url-load').click();
  await expect(page.getByTestId('model-info')).toContainText('/test-models/tiny/');
  await expect(page.getByTestId('model-progress-text')).toHaveText(/\(100 %\) · loaded/);
  await expect(page.getByTestId('model-params')).toContainText(parameters);
  await expect(page.getByTestId('error-box')).toBeHidden();

  // A quick run (one SFT step, one GRPO step) from the loaded weights: the first loss is the one they imply (a random init gives ≈ 5.6).
  await fillQuickRun(page, 1, 1);
  await page.getByTestId('start').click();
  await expect(page.getByTestId('summary')).toBeVisible({ timeout: 180_000 });
  await expect(page.getByTestId('summary')).toContainText('loaded: ');
  await expect(page.getByTestId('summary')).toContainText(parameters);
  const lossText = await page.getByTestId('summary').locator('dt:text-is("SFT loss") + dd').textContent();
  expect(Number(lossText!.split(' → ')[0])).toBeCloseTo(KNOWN_FIRST_LOSS, 3);
  await expect(page.getByTestId('error-box')).toBeHidden();

  // A model whose context is shorter than the demo's episodes: the fit list says so, and the worker refuses it by name.
  const short = knownLossModel({ ...TINY, maxPositionEmbeddings: 128 });
  await page.getByTestId('model-files').setInputFiles([
    { name: 'config.json', mimeType: 'application/json', buffer: Buffer.from(short.configJson) },
    { name: 'model.safetensors', mimeType: 'application/octet-stream', buffer: Buffer.from(short.safetensors) },
  ]);
  await expect(page.getByTestId('model-fit')).toHaveAttribute('data-ok', 'false');
  await expect(page.getByTestId('model-fit')).toContainText("more than the model's max_position_embeddings 128");
  await page.getByTestId('start').click();
  await expect(page.getByTestId('error-box')).toContainText(/Run: the loaded model's context \(max_position_embeddings 128\) is shorter than the demo's episodes \(288 tokens\)/, { timeout: 60_000 });
});

test('a corrupt or mismatched safetensors file shows a clear error', async ({ page }, info) => {
  const { configJson } = knownLossModel(TINY);
  await openPage(page, levelOf(info));
  const upload = (weights: Uint8Array) => page.getByTestId('model-files').setInputFiles([
    { name: 'config.json', mimeType: 'application/json', buffer: Buffer.from(configJson) },
    { name: 'model.safetensors', mimeType: 'application/octet-stream', buffer: Buffer.from(weights) },
  ]);
  await upload(new Uint8Array(100).fill(0xff));
  await expect(page.getByTestId('error-box')).toContainText(/Load model: safetensors: header length .* not a safetensors file/);
  await expect(page.getByTestId('model-progress-text')).toHaveText(/failed/);
  await expect(page.getByTestId('model-params')).toHaveCount(0);

  const other = { ...TINY, intermediateSize: 96 };
  await upload(knownLossModel(other).safetensors);
  await expect(page.getByTestId('error-box')).toContainText("tensor 'model.layers.0.mlp.gate_proj.weight': expected shape [64, 32], found [96, 32]");
  await page.screenshot({ path: info.outputPath('model-error.png'), fullPage: true });
});

test('in a browser without WebGPU: the error box says so, the header shows no GPU, and Start stays off', async ({ playwright, baseURL }) => {
  const browser = await playwright.chromium.launch({ executablePath: CHROMIUM_PATH, args: ['--no-sandbox', '--disable-features=WebGPU'] });
  try {
    const page = await (await browser.newContext({ baseURL })).newPage();
    await page.goto('/');
    await expect(page.getByTestId('adapter')).toHaveAttribute('data-state', 'failed', { timeout: 60_000 });
    await expect(page.getByTestId('adapter')).toContainText('no GPU');
    // Chromium still defines navigator.gpu here but has no adapter to give; either way the message says what to do.
    await expect(page.getByTestId('error-box')).toContainText(/GPU: (No WebGPU adapter was found .*check chrome:\/\/gpu|WebGPU is not available in this worker .*Use a recent Chrome)/);
    await expect(page.getByTestId('start')).toBeDisabled();
    await expect(page.getByTestId('run-status')).toHaveText(/No GPU/);
  } finally {
    await browser.close();
  }
});
