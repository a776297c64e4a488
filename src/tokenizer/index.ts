// Tokenizers (byte-level, Qwen3, Qwen3 trimmed to the corpus), the Qwen3 chat format and tool-call parsing.

export * from './types';
export { ByteTokenizer, BYTE_SPECIAL_BASE, BYTE_USED_IDS } from './byteTokenizer';
export { Qwen3Tokenizer, QWEN3_VOCAB_SIZE, loadQwen3Tokenizer } from './qwen3Tokenizer';
export { StreamDecoder } from './streamDecoder';
export { QWEN3_CHAT_TEMPLATE, patchedQwen3Template, renderChatTemplate, type TemplateOptions } from './chatTemplate';
export {
  assistantTurnText, conversationSegments, followUpText, generationPromptText, renderConversation,
  type ChatFormatOptions, type ChatSegment,
} from './chatSegments';
export { appendAssistantTurn, appendToolResults, encodeConversation, encodePrompt, type EncodeOptions } from './encodeConversation';
export * from './toolCalls';
export { compactToolLines, toolRenderingFor, withCompactTools, withToolRendering, type ToolRendering } from './compactTools';
export { TrimmedQwen3Tokenizer, paddedVocabSize } from './trimmedQwen3Tokenizer';
export { parseTrimmedVocab, type TrimmedVocabFile } from './trimmedVocab';
export { loadTrimmedQwen3Tokenizer, tokenizerForModel } from './tokenizerForModel';
export { expandTrimmedModel, expandTrimmedRows, gatherTrimmedRows, VOCAB_TENSOR_NAMES, type TrimmedIdMap } from './trimmedEmbedding';
