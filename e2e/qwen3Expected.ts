// What e2e/tokenizer.spec.ts expects the page to produce, computed by the Node implementation
// (qwen3TokenizerFromDisk + the same chat-format code). Run with tsx, not inside Playwright: the
// tokenizer modules import tokenizer_config.json without an import attribute (a bundler import),
// which Playwright's Node loader refuses. Reads an ExpectedRequest as JSON on stdin, writes an
// ExpectedResult as JSON on stdout.
import { readFileSync } from 'node:fs';
import type { ChatMessage, ToolSpec } from '../src/envs/types';
import { encodeConversation, renderChatTemplate, type EncodeOptions, type TemplateOptions, type TokenSequence } from '../src/tokenizer';
import { qwen3TokenizerFromDisk } from '../src/tokenizer/qwen3TokenizerNode';
import { loadTrimmedQwen3Tokenizer } from '../src/tokenizer/tokenizerForModel';
import type { TrimmedQwen3Tokenizer } from '../src/tokenizer/trimmedQwen3Tokenizer';

export interface ExpectedRequest {
  /** Texts to encode. */
  texts: string[];
  /** Chat-template renderings. */
  renders: { messages: ChatMessage[]; tools: ToolSpec[]; opts: TemplateOptions }[];
  /** Conversations to encode with their assistant mask. */
  conversations: { messages: ChatMessage[]; tools: ToolSpec[]; opts: EncodeOptions }[];
}

export interface ExpectedResult {
  ids: number[][];
  /** The same texts with the trimmed Qwen3 tokenizer (nano-q). */
  trimmedIds: number[][];
  renders: string[];
  conversations: TokenSequence[];
}

function expected(req: ExpectedRequest, trimmed: TrimmedQwen3Tokenizer): ExpectedResult {
  const tok = qwen3TokenizerFromDisk();
  return {
    ids: req.texts.map((t) => tok.encode(t)),
    trimmedIds: req.texts.map((t) => trimmed.encode(t)),
    renders: req.renders.map((r) => renderChatTemplate(r.messages, r.tools, r.opts)),
    conversations: req.conversations.map((c) => encodeConversation(tok, c.messages, c.tools, c.opts)),
  };
}

process.stdout.write(JSON.stringify(expected(JSON.parse(readFileSync(0, 'utf8')) as ExpectedRequest, await loadTrimmedQwen3Tokenizer())));
