// Loading a model into the page (restored from the earlier page.spec.ts, adapted to the pipeline
// page): a tiny HF-layout model written here with our own safetensors writer, from picked files, a
// folder and a URL; a run from its weights (the first loss is known in closed form); a model whose
// context is too short; the bundled copy base (button and a config's start); corrupt and mismatched
// weights; and a browser without WebGPU.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { CHROMIUM_PATH } from '../scripts/lib/browser';
import { modelToSafetensors } from '../src/model/checkpointIO';
import { BYTE_VOCAB_SIZE, type ModelConfig, PRESETS } from '../src/model/config';
import { countParameters, parameterTable } from '../src/model/parameters';
import type { PipelineConfig } from '../src/pipeline/config';
import { openPage, tinyPipeline } from './pageKit';

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

/** One SFT step and nothing else: enough to see the loaded weights' first loss. */
const oneSftStep = (): PipelineConfig => {
  const c = tinyPipeline({ sftSteps: 1 });
  return { ...c, stages: [c.stages[0]] };
};

test('a tiny model from files, a folder and a URL; a run starts from its weights; a too-short context is refused by name', async ({ page }, info) => {
  const { configJson, safetensors } = knownLossModel(TINY);
  const parameters = countParameters(TINY).toLocaleString('en');
  await openPage(page, info);

  await page.getByTestId('model-files').setInputFiles([
    { name: 'config.json', mimeType: 'application/json', buffer: Buffer.from(configJson) },
    { name: 'model.safetensors', mimeType: 'application/octet-stream', buffer: Buffer.from(safetensors) },
  ]);
  await expect(page.getByTestId('model-params')).toContainText(parameters);
  await expect(page.getByTestId('model-progress-text')).toHaveText(/reading tensors: .* \(100 %\) · loaded/);
  await expect(page.getByTestId('model-fit')).toHaveAttribute('data-ok', 'true');
  await expect(page.getByTestId('use-loaded')).toBeChecked();

  const dir = info.outputPath('tiny-model');
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}/config.json`, configJson);
  writeFileSync(`${dir}/model.safetensors`, safetensors);
  writeFileSync(`${dir}/README.md`, '# tiny\n');
  await page.getByTestId('model-folder').setInputFiles(dir);
  await expect(page.getByTestId('model-progress-text')).toHaveText(/reading tensors: .* \(100 %\) · loaded/);
  await expect(page.getByTestId('model-info')).toContainText('tiny-model/model.safetensors');

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

  // the first SFT loss is the one these weights imply (a random init gives ≈ 5.6)
  const first = await page.evaluate(async (c) => {
    let loss = NaN;
    const r = await window.tabforge.run(c, { autosaveEvery: 0, samples: 0 }, (e) => void (e.kind === 'sft' && Number.isNaN(loss) && (loss = e.loss)));
    if ('code' in r) throw new Error(`run failed: ${r.message}`);
    return loss;
  }, oneSftStep());
  expect(first).toBeCloseTo(KNOWN_FIRST_LOSS, 3);
  await expect(page.getByTestId('summary')).toContainText('loaded: ');
  await expect(page.getByTestId('error-box')).toBeHidden();

  const short = knownLossModel({ ...TINY, maxPositionEmbeddings: 128 });
  await page.getByTestId('model-files').setInputFiles([
    { name: 'config.json', mimeType: 'application/json', buffer: Buffer.from(short.configJson) },
    { name: 'model.safetensors', mimeType: 'application/octet-stream', buffer: Buffer.from(short.safetensors) },
  ]);
  await expect(page.getByTestId('model-fit')).toHaveAttribute('data-ok', 'false');
  await expect(page.getByTestId('model-fit')).toContainText("more than the model's max_position_embeddings 128");
  const refused = await page.evaluate((c) => window.tabforge.run(c, { autosaveEvery: 0, samples: 0 }), oneSftStep());
  expect(refused).toMatchObject({ code: 'error' });
  await expect(page.getByTestId('error-box')).toContainText(/Run: .*context\.maxTotalTokens \(288\) is longer than the model's context \(128 positions\)/);
});

test('the bundled copy base: its button loads it from the page\'s origin, a config that starts from it loads it itself, the editor shows the choice', async ({ page }, info) => {
  const provenance = JSON.parse(readFileSync('public/models/nano-copy-base/provenance.json', 'utf8')) as { bytes: number };
  const nanoParameters = countParameters(PRESETS.nano).toLocaleString('en');
  await openPage(page, info);
  await page.getByTestId('bundled-nano-copy-base').click();
  await expect(page.getByTestId('model-progress-text')).toHaveText(/\(100 %\) · loaded/);
  await expect(page.getByTestId('model-info')).toContainText('/models/nano-copy-base/');
  await expect(page.getByTestId('model-params')).toContainText(nanoParameters);
  expect(provenance.bytes).toBeGreaterThan(1_000_000);
  await page.getByTestId('model-unload').click();
  await expect(page.getByTestId('use-loaded')).toBeHidden();

  // one SFT step from the config's start, then the same from the seeded init: the first losses differ
  const firstLoss = (c: PipelineConfig) => page.evaluate(async (cfg) => {
    let loss = NaN;
    const r = await window.tabforge.run(cfg, { autosaveEvery: 0, samples: 0 }, (e) => void (e.kind === 'sft' && Number.isNaN(loss) && (loss = e.loss)));
    if ('code' in r) throw new Error(`run failed: ${r.message}`);
    return { loss, model: r.model };
  }, c);
  const fromBase = await firstLoss({ ...oneSftStep(), start: { bundled: 'nano-copy-base' } });
  expect(fromBase.model).toContain('/models/nano-copy-base/');
  await expect(page.getByTestId('model-info')).toContainText('/models/nano-copy-base/'); // the panel shows what the run started from
  await expect(page.getByTestId('use-loaded')).toBeChecked();
  await expect(page.locator('#pf-start-bundled')).toHaveValue('nano-copy-base');
  // a config without start starts from the seeded init: the model its predecessor's start loaded is unticked
  const seeded = await firstLoss(oneSftStep());
  expect(seeded.model).toBe('preset nano');
  await expect(page.getByTestId('use-loaded')).not.toBeChecked();
  expect(Math.abs(fromBase.loss - seeded.loss)).toBeGreaterThan(1e-3);
  await expect(page.locator('#pf-start-bundled')).toHaveValue('');
  await expect(page.getByTestId('error-box')).toBeHidden();
});

test('a corrupt or mismatched safetensors file shows a clear error', async ({ page }, info) => {
  const { configJson } = knownLossModel(TINY);
  await openPage(page, info, { waitGpu: false });
  const upload = (weights: Uint8Array) => page.getByTestId('model-files').setInputFiles([
    { name: 'config.json', mimeType: 'application/json', buffer: Buffer.from(configJson) },
    { name: 'model.safetensors', mimeType: 'application/octet-stream', buffer: Buffer.from(weights) },
  ]);
  await upload(new Uint8Array(100).fill(0xff));
  await expect(page.getByTestId('error-box')).toContainText(/Load model: safetensors: header length .* not a safetensors file/);
  await expect(page.getByTestId('model-progress-text')).toHaveText(/failed/);
  await expect(page.getByTestId('model-params')).toHaveCount(0);
  await upload(knownLossModel({ ...TINY, intermediateSize: 96 }).safetensors);
  await expect(page.getByTestId('error-box')).toContainText("tensor 'model.layers.0.mlp.gate_proj.weight': expected shape [64, 32], found [96, 32]");
});

test('in a browser without WebGPU: the error box says so, the header shows no GPU, and Start stays off', async ({ playwright, baseURL }) => {
  const browser = await playwright.chromium.launch({ executablePath: CHROMIUM_PATH, args: ['--no-sandbox', '--disable-features=WebGPU'] });
  try {
    const page = await (await browser.newContext({ baseURL })).newPage();
    await page.goto('/');
    await expect(page.getByTestId('adapter')).toHaveAttribute('data-state', 'failed', { timeout: 60_000 });
    await expect(page.getByTestId('adapter')).toContainText('no GPU');
    await expect(page.getByTestId('error-box')).toContainText(/GPU: (No WebGPU adapter was found .*check chrome:\/\/gpu|WebGPU is not available in this worker .*Use a recent Chrome)/);
    await expect(page.getByTestId('start')).toBeDisabled();
    await expect(page.getByTestId('run-status')).toHaveText(/No GPU/);
  } finally {
    await browser.close();
  }
});
