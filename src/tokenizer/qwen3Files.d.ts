// Types for qwen3Files.js (see there for why it is JavaScript).

/** The parts of Qwen3's tokenizer.json that TabForge reads; the rest is handed to @huggingface/tokenizers as is. */
export interface Qwen3TokenizerJson {
  added_tokens: { id: number; content: string; special: boolean }[];
  model: { type: string; vocab: Record<string, number> };
}

/** The parts of Qwen3's tokenizer_config.json that TabForge reads. */
export interface Qwen3TokenizerConfig {
  chat_template: string;
  eos_token: string;
  pad_token: string;
}

export function loadQwen3TokenizerJson(): Promise<Qwen3TokenizerJson>;
