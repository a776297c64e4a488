// `npm run learn -- --preset qwen3-0.6b --model DIR` end to end through the CLI's own path (flags →
// parseLearnArgs → runLearn → loadModelForPipeline → runner), on a tiny random Qwen3 folder written
// by our safetensors writer (BF16 shards + index, the real Qwen3 tokenizer files, nothing downloaded):
// SFT → GRPO → eval and the SFT-only arm with LoRA on an f16 base; the last line's shape; the base
// unchanged and the adapters trained; the folder's weights really used (its first SFT loss is its own,
// far from a seeded init's); the PEFT adapter saved; the same seed twice gives the same metrics; and
// every bad folder or plan refused with a message that says what to do, before anything is loaded.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testRuntime } from '../../src/gpu/testDevice';
import { inspectHfFolder, loadHfWeights } from '../../src/model/hfFolder';
import { folderSource } from '../../src/model/hfFolderNode';
import { readSafetensors } from '../../src/model/safetensors';
import type { GpuWeights } from '../../src/model/weights';
import { parseLearnArgs } from './learnArgs';
import { runLearn } from './learnRun';
import { TINY_QWEN, writeTinyQwenFolder } from './tinyQwenFolder';

const root = mkdtempSync(join(tmpdir(), 'learn-model-'));
const model = join(root, 'model');

/** A run small enough for a test: 8 SFT conversations, 2 SFT steps, 1 GRPO step (1 task × G 2), 2 test tasks. */
const flags = (dir: string, ...extra: string[]) => [
  '--family', 'function-calling', '--level', 'route4', '--preset', 'qwen3-0.6b', '--model', dir, '--lora-rank', '4', '--seed', '3',
  '--sft-examples', '8', '--sft-steps', '2', '--sft-batch', '1', '--steps', '1', '--tasks-per-step', '1', '--group', '2', '--sampling-rounds', '1', '--eval-n', '2',
  ...extra,
];

async function learn(argv: string[], onWeights?: (seed: number, w: GpuWeights) => Promise<void>) {
  const rt = await testRuntime('opengles');
  const printed: string[] = [];
  const logs: string[] = [];
  await runLearn(rt, parseLearnArgs(argv), { log: (l) => logs.push(l), print: (l) => printed.push(l), onWeights });
  return { last: JSON.parse(printed.at(-1)!) as Record<string, unknown>, logs };
}

/** JSONL records without wall-clock figures (they differ between any two runs). */
function timeless(path: string): unknown[] {
  const strip = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(strip);
    if (x && typeof x === 'object') return Object.fromEntries(Object.entries(x).filter(([k]) => !/time|per_?s|seconds/i.test(k)).map(([k, v]) => [k, strip(v)]));
    return x;
  };
  return readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => strip(JSON.parse(l)));
}

describe('npm run learn --model (llvmpipe)', () => {
  beforeAll(() => {
    writeTinyQwenFolder(model);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('trains the loaded folder with LoRA through SFT → GRPO → eval and the SFT-only arm; only the adapters change; the same seed gives the same metrics', async () => {
    const rt = await testRuntime('opengles');
    const src = await folderSource(model);
    const loader = await loadHfWeights(rt, src, await inspectHfFolder(src), { f16Base: true });
    const loadedBase = await loader.download(); // the base as the loader stores it (f16 values)
    loader.destroy();

    let base: Map<string, Float32Array> | undefined;
    let adapters: Map<string, Float32Array> | undefined;
    const out = join(root, 'a.jsonl');
    const a = await learn(flags(model, '--out', out, '--save', join(root, 'save')), async (_seed, w) => {
      base = await w.download();
      adapters = await w.lora!.download();
    });

    // the last line: the documented keys, rates in 0…1, the baselines beside them
    expect(Object.keys(a.last).sort()).toEqual(['after_grpo', 'after_sft', 'baselines', 'before_sft', 'family', 'grpo_minus_sft_only', 'n', 'seed', 'sft_only_same_compute', 'split']);
    expect(a.last).toMatchObject({ family: 'function-calling', split: 'test', n: 2, seed: 3, before_sft: null });
    for (const k of ['after_sft', 'after_grpo', 'sft_only_same_compute']) expect(a.last[k]).toBeGreaterThanOrEqual(0);
    // the paired gap: the two rates' difference, over the same n tasks, inside its own interval
    const gap = a.last.grpo_minus_sft_only as { diff: number; lo: number; hi: number; n: number; only_grpo: number; only_sft_only: number };
    expect(gap.n).toBe(2);
    expect(gap.diff).toBeCloseTo((a.last.after_grpo as number) - (a.last.sft_only_same_compute as number), 12);
    expect(gap.diff).toBeCloseTo((gap.only_grpo - gap.only_sft_only) / gap.n, 12);
    expect(gap.lo).toBeLessThanOrEqual(gap.diff);
    expect(gap.hi).toBeGreaterThanOrEqual(gap.diff);
    expect(a.logs.join('\n')).toMatch(/GRPO − SFT only, same compute: [+−]\d+\.\d \[[+−]\d+\.\d, [+−]\d+\.\d\] points \(paired, n = 2: /);
    expect(Object.keys(a.last.baselines as object)).toEqual(expect.arrayContaining(['do nothing', 'random']));
    expect(a.logs.join('\n')).toMatch(/memory plan \(LoRA r 4 on an f16 base/);
    expect(a.logs.join('\n')).toMatch(/tokenizer: tokenizer\.json in /);

    // every stage ran on the loaded model: 2 + 1 SFT steps (both arms), a GRPO step, 3 evaluations
    const records = timeless(out) as { kind: string; loss?: number; stage?: number }[];
    const sft = records.filter((r) => r.kind === 'sft');
    expect(sft.length).toBe(3);
    expect(records.filter((r) => r.kind === 'grpo').length).toBe(1);
    expect(records.filter((r) => r.kind === 'eval').length).toBe(3);
    // the folder's weights were trained, not a seeded init: this folder's model puts <|im_end|> ~150
    // logits above every other token, so its loss on a tool call is ~150; any std-0.02 init scores ln V ≈ 11.9
    expect(sft[0].loss).toBeGreaterThan(100);

    // the base is exactly as loaded; every adapter's B moved off its 0 init
    expect(base!.size).toBe(loadedBase.size);
    for (const [name, v] of loadedBase) expect(base!.get(name), name).toEqual(v);
    const Bs = [...adapters!].filter(([n]) => n.includes('lora_B'));
    expect(Bs.length).toBe(7 * TINY_QWEN.numLayers);
    for (const [name, v] of Bs) expect(v.some((x) => x !== 0), name).toBe(true);

    // --save: the PEFT adapter of the run's final weights (the GRPO arm's)
    const saved = readSafetensors(new Uint8Array(readFileSync(join(root, 'save', 'final', 'adapter_model.safetensors'))));
    expect(JSON.parse(readFileSync(join(root, 'save', 'final', 'adapter_config.json'), 'utf8'))).toMatchObject({ peft_type: 'LORA', r: 4, lora_alpha: 8, base_model_name_or_path: model });
    for (const [name, v] of adapters!) expect(saved.get(name)?.data, name).toEqual(v);

    // the same flags again: the same last line and the same step metrics and evaluations
    const outB = join(root, 'b.jsonl');
    const b = await learn(flags(model, '--out', outB));
    expect(b.last).toEqual(a.last);
    expect(timeless(outB)).toEqual(records);
  }, 600_000); // ≈ 20 s alone, up to 108 s measured on the loaded 2-core machine: well above the 120 s default

  it('refuses a bad folder or a plan that does not fit, before loading, saying what to do', async () => {
    const bad = (name: string, edit: (dir: string) => void, cfg = TINY_QWEN) => {
      const dir = join(root, name);
      writeTinyQwenFolder(dir, { cfg });
      edit(dir);
      return dir;
    };
    const rewrite = (dir: string, file: string, f: (text: string) => string) => writeFileSync(join(dir, file), f(readFileSync(join(dir, file), 'latin1')), 'latin1');
    const refuse = (argv: string[], message: RegExp) => expect(learn(argv)).rejects.toThrow(message);

    await refuse(flags(join(root, 'nowhere')), /--model .*nowhere: no such folder; give the folder of a Hugging Face Qwen3 model/);
    await refuse(flags(bad('llama', (d) => rewrite(d, 'config.json', (t) => t.replace('"model_type": "qwen3"', '"model_type": "llama"')))), /model_type "llama" is not supported: TabForge trains the Qwen3 architecture/);
    // config.json says 3 layers, the weights hold 2: layer 2's tensors are missing
    await refuse(flags(bad('missing', (d) => rewrite(d, 'config.json', (t) => t.replace('"num_hidden_layers": 2', '"num_hidden_layers": 3')))), /tensor 'model\.layers\.2\.[\w.]+' \[[\d, ]+\] is missing/);
    // config.json says 1 layer, the weights hold 2: layer 1's tensors are extra
    await refuse(flags(bad('extra', (d) => rewrite(d, 'config.json', (t) => t.replace('"num_hidden_layers": 2', '"num_hidden_layers": 1')))), /the file has 2 layers .* but config\.json says num_hidden_layers 1/);
    // a 2-byte integer dtype where BF16 was (same size: only the header changes)
    await refuse(flags(bad('dtype', (d) => rewrite(d, 'model-00002-of-00002.safetensors', (t) => t.replace('"dtype":"BF16"', '"dtype":"I16" ')))), /expected a float dtype \(F32, F16 or BF16\), found I16/);
    // a 32 000-row model (config.json as transformers writes it: no tabforge_tokenizer) with Qwen3's 151 669-id tokenizer, or with none
    const small = { ...TINY_QWEN, vocabSize: 32000 };
    const hfConfig = (d: string) => rewrite(d, 'config.json', (t) => t.replace(/,\s*"tabforge_tokenizer": "qwen3"/, ''));
    await refuse(flags(bad('vocab', hfConfig, small)), /produces ids up to 151668, but the model's embedding has vocab_size 32000 rows: this tokenizer does not belong to this model/);
    const noTok = join(root, 'no-tokenizer');
    writeTinyQwenFolder(noTok, { cfg: small, tokenizer: false });
    hfConfig(noTok);
    await refuse(flags(noTok), /vocab_size 32000 .* and the folder has no tokenizer\.json: .* add its tokenizer\.json and tokenizer_config\.json/);
    // the memory plan, before loading: a budget, and a storage binding (128 MiB on llvmpipe)
    await refuse(flags(model, '--budget-gib', '0.05'), /this run on .* needs [\d.]+ MiB \(weights .*\); the budget is 51\.2 MiB: use at most \d+ tokens per step \(now 1024\)/);
    await refuse(flags(model, '--budget-gib', '0.01'), /the budget is 10\.2 MiB: the rollout decoder's KV cache \([\d.]+ MiB\) leaves no room: decode fewer rows/);
    await refuse(flags(model, '--budget-gib', '0.005'), /the budget is 5\.1 MiB: the weights alone do not fit: choose a smaller model/);
    await refuse(flags(model).map((x, i, all) => (all[i - 1] === '--sft-batch' ? '1024' : x)), /needs a [\d.]+ MiB buffer for .*; this adapter's storage bindings hold 128 MiB: use at most \d+ tokens per step \(batch × seqLen, now 786432\)/);
  });
});
