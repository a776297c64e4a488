// Issue 16's merge stage and LoRA rank in the page (Chromium, real WebGPU): the "All + merge" example
// shows shared SFT → specialists (SFT, GRPO) → eval → merge → eval; a merge stage's fields (method, weights, density, …) and
// the LoRA rank are edited, validated where they are, and carried by a share link; a small merge
// pipeline runs in the page's worker and reports each specialist and the merged model.
import { expect, test } from '@playwright/test';
import type { PipelineConfig } from '../src/pipeline/config';
import { openPage, runToEnd } from './pageKit';

test('the merge stage and the LoRA rank: edited, validated where they are, carried by a share link', async ({ page }, info) => {
  await openPage(page, info, { waitGpu: false });
  await page.getByTestId('example-merge').click();
  await expect(page.getByTestId('stages').locator('fieldset.stage')).toHaveClass([/stage-sft/, /stage-sft/, /stage-grpo/, /stage-eval/, /stage-merge/, /stage-eval/]);
  await expect(page.locator('#pf-stages-0-specialists')).not.toBeChecked();
  await expect(page.locator('#pf-stages-1-specialists')).toBeChecked();
  await expect(page.locator('#pf-stages-2-specialists')).toBeChecked();
  await expect(page.locator('#pf-stages-4-method')).toHaveValue('ties');
  await expect(page.locator('#pf-stages-4-density')).toHaveValue('0.5');
  await expect(page.locator('#pf-lora-rank')).toHaveValue('');
  await expect(page.getByTestId('error-form')).toBeEmpty();
  await page.getByRole('button', { name: 'Help: Method' }).click();
  await expect(page.locator('.help-pop:popover-open')).toContainText('TIES');
  await page.keyboard.press('Escape');

  // weights: one per specialist
  await page.fill('#pf-stages-4-weights', '1, 2');
  await expect(page.getByTestId('error-stages.4.weights')).toHaveText('Weights 2 weights for 3 specialists; give one per task set with weight > 0, in mix order');
  await expect(page.getByTestId('start')).toBeDisabled();
  await page.fill('#pf-stages-4-weights', '1, 2, 1');
  await page.selectOption('#pf-stages-4-method', 'dare-linear');
  await page.fill('#pf-stages-4-density', '0.7');
  await page.fill('#pf-stages-4-lambda', '0.8');
  // nothing to merge once the specialists are off
  await page.locator('#pf-stages-1-specialists').uncheck();
  await expect(page.getByTestId('error-form')).toBeEmpty(); // the GRPO specialists still come before the merge
  await page.locator('#pf-stages-2-specialists').uncheck();
  await expect(page.getByTestId('error-form')).toContainText('stages.4: nothing to merge: no stage before it trains specialists');
  await page.locator('#pf-stages-2-specialists').check();
  await page.locator('#pf-stages-1-specialists').check();
  // a second merge after the first has nothing to merge; removing it clears the message
  await page.getByTestId('add-merge').click();
  await expect(page.getByTestId('error-form')).toContainText('stages.6: nothing to merge');
  await page.getByTestId('remove-stage-6').click();
  // LoRA rank: at most the hidden size
  await page.fill('#pf-lora-rank', '500');
  await expect(page.getByTestId('error-lora.rank')).toContainText("LoRA rank 500 is more than preset nano-q's hidden size");
  await page.fill('#pf-lora-rank', '4');
  await expect(page.getByTestId('error-form')).toBeEmpty();
  await expect(page.getByTestId('error-lora.rank')).toBeEmpty();
  // a stage's own LoRA: "off" = full fine-tuning in the shared stage under the run's rank
  await page.fill('#pf-stages-0-lora', 'eight');
  await expect(page.getByTestId('error-stages.0.lora')).toContainText('must be false (full fine-tuning in this stage)');
  await page.fill('#pf-stages-0-lora', 'off');
  await expect(page.getByTestId('error-stages.0.lora')).toBeEmpty();
  await expect(page.getByTestId('error-form')).toBeEmpty();

  await page.getByTestId('share').click();
  const url = await page.getByTestId('share-url').inputValue();
  const fresh = await page.context().newPage();
  await openPage(fresh, null, { hash: new URL(url).hash, query: new URL(url).search, waitGpu: false });
  await expect(fresh.locator('#pf-stages-4-method')).toHaveValue('dare-linear');
  await expect(fresh.locator('#pf-stages-4-weights')).toHaveValue('1,2,1');
  await expect(fresh.locator('#pf-stages-4-density')).toHaveValue('0.7');
  await expect(fresh.locator('#pf-stages-4-lambda')).toHaveValue('0.8');
  await expect(fresh.locator('#pf-stages-1-specialists')).toBeChecked();
  await expect(fresh.locator('#pf-lora-rank')).toHaveValue('4');
  const shared = await fresh.evaluate(() => JSON.parse(atob(location.hash.slice('#pipeline='.length).split('&')[0].replace(/-/g, '+').replace(/_/g, '/'))));
  expect(shared.stages[4]).toEqual({ kind: 'merge', method: 'dare-linear', weights: [1, 2, 1], density: 0.7, lambda: 0.8 });
  expect(shared.lora).toEqual({ rank: 4 });
  await expect(fresh.locator('#pf-stages-0-lora')).toHaveValue('off');
  await expect(fresh.locator('#pf-stages-1-lora')).toHaveValue('');
  expect(shared.stages[0].lora).toBe(false);
  expect(shared.stages[1]).not.toHaveProperty('lora');
  // clearing the rank is full fine-tuning again (no empty lora object left behind)
  await fresh.fill('#pf-lora-rank', '');
  await expect(fresh.getByTestId('error-form')).toBeEmpty();
  await fresh.close();
});

test('a merge pipeline runs in the page: each specialist trains and is scored, then the merged model', async ({ page }, info) => {
  await openPage(page, info);
  const cfg: PipelineConfig = {
    version: 1, preset: 'nano', seed: 1, lora: { rank: 4 },
    tasks: [{ family: 'function-calling', level: 'route4', weight: 1 }, { family: 'function-calling', level: 'route8', weight: 1 }],
    context: { maxTotalTokens: 384, maxNewTokensPerTurn: 64, maxTurns: 1 },
    stages: [
      { kind: 'sft', data: { source: 'synthetic', examples: 8, drills: 0 }, steps: 2, batchSize: 2, lr: 3e-3, warmupSteps: 1, minLrRatio: 1, specialists: true },
      { kind: 'eval', label: 'specialists', split: 'test', n: 2, baselines: false },
      { kind: 'merge', method: 'ties', density: 0.5 },
      { kind: 'eval', label: 'merged', split: 'test', n: 2, baselines: false },
    ],
  };
  const events = await runToEnd(page, cfg, { samples: 0 });
  const sft = events.filter((e) => e.kind === 'sft');
  expect(sft.map((e) => [e.step, e.totalSteps])).toEqual([[1, 4], [2, 4], [3, 4], [4, 4]]);
  expect(events.filter((e) => e.kind === 'eval').map((e) => e.summary.label)).toEqual(['specialists · specialist function-calling/route4', 'specialists · specialist function-calling/route8', 'merged']);
  expect(events.some((e) => e.kind === 'phase' && e.phase === 'merge' && /ties of 2 specialists/.test(e.detail))).toBe(true);
  await expect(page.getByTestId('progress-percent')).toHaveText('100 %');
  await expect(page.getByTestId('eval')).toHaveText([/specialist function-calling\/route4/, /specialist function-calling\/route8/, /^merged/]);
});
