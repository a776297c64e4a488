// A rollout actor builds its tokenizer from the model config (tokenizerForModel): a trimmed-Qwen3
// model plays episodes in Qwen3 ids (compact tools), a config whose vocabulary does not match is refused.
import { describe, expect, it } from 'vitest';
import { testRuntime } from '../../../gpu/testDevice';
import { TRIMMED_QWEN3_VOCAB_SIZE, type ModelConfig } from '../../../model/config';
import { initialWeights } from '../../../model/weights';
import { loadTrimmedQwen3Tokenizer } from '../../../tokenizer/tokenizerForModel';
import { MICRO_MODEL } from '../../testing/microModel';
import { DEFAULT_ROLLOUT } from '../rollout';
import { RolloutActor } from './actors';
import { packWeights } from './weights';

const MICRO_Q: ModelConfig = { ...MICRO_MODEL, vocabSize: TRIMMED_QWEN3_VOCAB_SIZE, tokenizer: 'qwen3-trimmed' };

describe('RolloutActor with the trimmed Qwen3 tokenizer (llvmpipe)', () => {
  it('plays routing episodes whose prompts are Qwen3 ids of the compact rendering', async () => {
    const rt = await testRuntime('opengles');
    const tok = await loadTrimmedQwen3Tokenizer();
    const rollout = { ...DEFAULT_ROLLOUT, groupSize: 2, maxTurns: 1, maxNewTokensPerTurn: 6, maxTotalTokens: 256 };
    const actor = await RolloutActor.create(rt, { model: MICRO_Q, tasks: [{ family: 'function-calling', level: 'route4', weight: 1 }], rollout, taskSeed: 5 }, packWeights(initialWeights(MICRO_Q, 7), 0));
    const result = await actor.rollout({ slot: 0, firstTask: 0, tasks: 1, seed: 3 });
    expect(result.trajectories).toHaveLength(2);
    actor.destroy();
    for (const t of result.trajectories) {
      expect(t.ids.every((id) => id >= 0 && id < MICRO_Q.vocabSize)).toBe(true);
      const prompt = tok.decode(t.ids.slice(0, t.lossMask.indexOf(1)));
      expect(prompt).toContain('Tools:\nweather(city): Weather in a city');
      expect(prompt).not.toContain('# Tools');
      expect(prompt.endsWith('<|im_start|>assistant\n<think>\n\n</think>\n\n')).toBe(true);
    }
    await expect(RolloutActor.create(rt, { model: { ...MICRO_Q, vocabSize: 272 }, tasks: [{ family: 'function-calling', level: 'route4', weight: 1 }], rollout, taskSeed: 5 }, packWeights(initialWeights({ ...MICRO_Q, vocabSize: 272 }, 7), 0)))
      .rejects.toThrow(/another kept-id list/);
  }, 120_000);
});
