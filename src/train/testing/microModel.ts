// The one-layer byte-tokenizer model the RL tests run on (hidden 32): big enough to exercise every
// kernel of a training step, small enough that a whole rollout + GRPO step takes well under a second.
import { BYTE_VOCAB_SIZE, type ModelConfig } from '../../model/config';

export const MICRO_MODEL: ModelConfig = {
  vocabSize: BYTE_VOCAB_SIZE, hiddenSize: 32, intermediateSize: 64, numLayers: 1, numHeads: 2, numKvHeads: 1, headDim: 16,
  rmsNormEps: 1e-6, ropeTheta: 10000, maxPositionEmbeddings: 512, tieWordEmbeddings: true, tokenizer: 'byte',
};
