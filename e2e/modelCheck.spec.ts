// The real Qwen3-0.6B shape in headless Chromium, through the GPU worker (src/workers/modelCheck.ts):
// a seeded random 1-layer model with the exact 0.6B widths, vocabulary and heads, written as a
// sharded BF16 folder by our own safetensors writer inside the worker, streamed into an f16 base
// (on the compatibility adapter the 297 MiB embedding / tied LM head is split over 3 storage
// bindings of ≤ 128 MiB), its memory plan checked, then one LoRA SFT step (a tool call rendered with
// Qwen3's template and full JSON tool schema, real Qwen3 tokenizer) and one GRPO step (rollouts from
// the model, KL reference sharing the frozen base) — on both CPU adapters.
import { expect, test } from '@playwright/test';

test('Qwen3-0.6B shape (1 layer): load, LoRA SFT step and GRPO step in the GPU worker', async ({ page }, info) => {
  test.setTimeout(600_000);
  const level = info.project.metadata.featureLevel as 'core' | 'compatibility';
  page.on('console', (m) => console.log(`[page] ${m.text()}`));
  await page.goto('/model-check.html');
  await page.waitForFunction(() => window.modelCheck?.ready === true);
  const t0 = Date.now();
  const out = await page.evaluate((l) => window.modelCheck.run({ kind: 'random', layers: 1, seed: 3 }, { groupSize: 2, maxNewTokens: 6 }, l), level);
  const seconds = (Date.now() - t0) / 1000;
  expect(out, JSON.stringify(out)).not.toHaveProperty('code');
  const { adapter, report } = out as Exclude<typeof out, { code: string }>;
  console.log(`${info.project.name}: ${seconds.toFixed(0)} s; ${JSON.stringify(report.seconds)}; peak ${(report.peakBytes / 2 ** 20).toFixed(0)} MiB; SFT loss ${report.sft.loss.toFixed(3)}; GRPO ${JSON.stringify(report.grpo)}`);
  expect(adapter.featureLevel).toBe(level);
  expect(report.parameters).toBe(151936 * 1024 + 15_730_944 + 1024);
  // split bindings where they are small: 151 936 × 1 024 f16 = 297 MiB
  expect(report.vocabParts).toBe(level === 'compatibility' ? 3 : 1);
  expect(report.tokenizer).toBe('bundled Qwen3 tokenizer');
  expect(report.sft.skipped).toBe(false);
  expect(report.sft.scoredTokens).toBe(21); // the assistant's tool call and <|im_end|>
  expect(report.sft.loss).toBeGreaterThan(10); // ≈ ln 151 936 = 11.9 for random weights
  expect(report.sft.loss).toBeLessThan(14);
  expect(report.grpo?.skipped, report.grpo?.reason).toBe(false);
  expect(Number.isFinite(report.grpo?.loss)).toBe(true);
  expect(report.grpo?.policyTokens).toBeGreaterThan(0);
  expect(report.plan[0]).toMatch(/^memory plan .*: [\d.]+ [MG]iB in all$/);
});
