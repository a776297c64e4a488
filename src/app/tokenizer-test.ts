// Test page for the Qwen3 tokenizer in real Chromium (e2e/tokenizer.spec.ts): the lazily loaded
// vocabulary chunk, encode / decode, the chat template (@huggingface/jinja) and the assistant mask,
// on window for Playwright. Nothing is loaded until load() is called, so the spec can see the chunk
// being fetched.
import type { ChatMessage, ToolSpec } from '../envs/types';
import { PRESETS } from '../model/config';
import {
  encodeConversation, loadQwen3Tokenizer, renderChatTemplate, tokenizerForModel,
  type EncodeOptions, type Qwen3Tokenizer, type TemplateOptions, type TokenSequence, type TrimmedQwen3Tokenizer,
} from '../tokenizer';

const status = document.getElementById('status')!;
let tokenizer: Qwen3Tokenizer | undefined;
let trimmed: TrimmedQwen3Tokenizer | undefined;

function loaded(): Qwen3Tokenizer {
  if (!tokenizer) throw new Error('tokenizerTest: call load() first (the Qwen3 vocabulary is loaded lazily)');
  return tokenizer;
}

const tokenizerTest = {
  ready: true,
  /** Fetches and builds the Qwen3 tokenizer; returns how long that took (ms) and its special ids. */
  async load(): Promise<{ ms: number; imStartId: number; imEndId: number; eosId: number; padId: number; vocabSize: number }> {
    status.dataset.state = 'loading';
    status.textContent = 'loading…';
    const t0 = performance.now();
    try {
      tokenizer = await loadQwen3Tokenizer();
    } catch (e) {
      status.dataset.state = 'failed';
      status.textContent = e instanceof Error ? e.message : String(e);
      throw e;
    }
    const ms = Math.round(performance.now() - t0);
    status.dataset.state = 'ready';
    status.textContent = `loaded in ${ms} ms`;
    const { imStartId, imEndId, eosId, padId, vocabSize } = tokenizer;
    return { ms, imStartId, imEndId, eosId, padId, vocabSize };
  },
  /** The nano-q preset's tokenizer (trimmed Qwen3), as every stage gets it: tokenizerForModel. */
  async loadTrimmed(): Promise<{ kind: string; vocabSize: number; usedIds: number }> {
    trimmed = (await tokenizerForModel(PRESETS['nano-q'])) as TrimmedQwen3Tokenizer;
    return { kind: trimmed.kind, vocabSize: trimmed.vocabSize, usedIds: trimmed.usedIds };
  },
  /** Trimmed ids of each text, their decoding, their Qwen3 ids and Qwen3's decoding of those. */
  trimmedRoundTrips(texts: string[]): { ids: number[]; back: string; qwen3Ids: number[]; qwen3Back: string }[] {
    if (!trimmed || !tokenizer) throw new Error('tokenizerTest: call load() and loadTrimmed() first');
    const [t, q] = [trimmed, tokenizer];
    return texts.map((text) => {
      const ids = t.encode(text);
      const qwen3Ids = t.toQwen3Ids(ids);
      return { ids, back: t.decode(ids), qwen3Ids, qwen3Back: q.decode(qwen3Ids) };
    });
  },
  encode: (text: string): number[] => loaded().encode(text),
  decode: (ids: number[]): string => loaded().decode(ids),
  /** The chat template alone (needs no vocabulary). */
  render: (messages: ChatMessage[], tools: ToolSpec[], opts: TemplateOptions): string => renderChatTemplate(messages, tools, opts),
  /** Ids and assistant mask, as SFT builds them. */
  encodeConversation: (messages: ChatMessage[], tools: ToolSpec[], opts: EncodeOptions): TokenSequence =>
    encodeConversation(loaded(), messages, tools, opts),
};

declare global {
  interface Window {
    tokenizerTest: typeof tokenizerTest;
  }
}
window.tokenizerTest = tokenizerTest;
