// Tokenizers (byte-level, Qwen3), the Qwen3 chat format and tool-call parsing.

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
export { compactToolLines, withCompactTools } from './compactTools';
