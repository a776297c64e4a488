// The largest training shape of a pipeline (rows × tokens, and whether GRPO keeps a frozen
// reference), what the page's fit estimate checks before a run. The same rule as the runner's
// trainingShape (src/pipeline/runner.ts), written out so the page's main thread does not load the
// GPU code; a unit test keeps the two equal.
import { PRESETS } from '../model/config';
import type { PipelineConfig } from '../pipeline/config';
import { rowsForLogits, sftRowLength } from '../pipeline/trainingRows';

export function trainingShapeOf(cfg: PipelineConfig): { batchSize: number; seqLen: number; referenceCopy: boolean; episodeTokens: number } {
  const T = cfg.context.maxTotalTokens;
  let best = { batch: 1, seqLen: T };
  let referenceCopy = false;
  for (const s of cfg.stages) {
    let shape: { batch: number; seqLen: number } | null = null;
    if (s.kind === 'sft') shape = { batch: s.batchSize, seqLen: sftRowLength(cfg) };
    if (s.kind === 'grpo') {
      // single-turn contexts lay a group out as [prompt | G samples] in one row (runner.grpoLoopConfig)
      const sharePrefix = cfg.context.maxTurns === 1;
      shape = sharePrefix
        ? { batch: 2, seqLen: Math.ceil((T + (s.groupSize - 1) * cfg.context.maxNewTokensPerTurn) / 64) * 64 }
        : { batch: rowsForLogits(T, PRESETS[cfg.preset].vocabSize, 4), seqLen: T };
      referenceCopy ||= s.klCoef > 0;
    }
    if (shape && shape.batch * shape.seqLen > best.batch * best.seqLen) best = shape;
  }
  return { batchSize: best.batch, seqLen: best.seqLen, referenceCopy, episodeTokens: T };
}
