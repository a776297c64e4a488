// Row shapes the runner trains at, as pure functions of the config (no GPU code), so the page's main
// thread can check the fit of a run (src/app/trainingShape.ts) with the runner's own numbers.
import type { PipelineConfig } from './config';

/** Logits of one micro-batch must fit one storage binding: 128 MiB on compatibility adapters (the smallest this runs on). */
const LOGITS_BINDING_BYTES = 128 * 2 ** 20;

/** Rows (≤ max, ≥ 1) whose (rows, T, V) float32 logits fit LOGITS_BINDING_BYTES. */
export function rowsForLogits(T: number, V: number, max: number): number {
  return Math.max(1, Math.min(max, Math.floor(LOGITS_BINDING_BYTES / (4 * T * V))));
}

/**
 * SFT row length: conversations that share their system block (every conversation of a task set)
 * hold it once per row, their rests as branches, so a row longer than one conversation packs
 * several (routing: ~7 per 768-token row instead of 2).
 */
export function sftRowLength(cfg: PipelineConfig): number {
  return Math.max(cfg.context.maxTotalTokens, 768);
}
