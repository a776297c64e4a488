// npm run merge: merges fine-tuned models (HF folders or PEFT adapters of one base) one tensor at a
// time with a method of src/train/merge, writing an HF folder (or one PEFT adapter with --as-adapter).
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { peftFiles } from '../src/storage/export/peft';
import { isPeftFolder, openHfModelFolder, openPeftFolder, safetensorsFileSink, writeFolder } from '../src/storage/hfFolder';
import { concatAdapters, loraDeltaSource } from '../src/train/merge/loraMerge';
import { mergeModels, type TensorSourceModel } from '../src/train/merge/mergeStream';
import { mergeMethod, mergeOptions } from '../src/train/merge/methods';
import { MERGE_USAGE, parseMergeArgs } from './lib/mergeArgs';

/** Files of the base folder that describe the tokenizer and generation, copied to the output unchanged. */
const COPIED = ['generation_config.json', 'tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json', 'vocab.json', 'merges.txt', 'chat_template.jinja'];

async function main(): Promise<void> {
  const args = parseMergeArgs(process.argv.slice(2));
  if (args.help) {
    console.log(MERGE_USAGE);
    return;
  }
  const method = mergeMethod(args.method);
  const options = mergeOptions(method, args.models.length, args);
  const t0 = performance.now();
  const base = args.base ? await openHfModelFolder(args.base) : null;
  const peft = args.models.map(isPeftFolder);
  if (peft.some((p) => p) && !base) throw new Error('--models lists PEFT adapter folders: give their base model with --base');

  if (args.asAdapter) {
    if (!peft.every((p) => p)) throw new Error('--as-adapter needs every --models folder to be a PEFT adapter');
    if (method.name !== 'linear' && method.name !== 'task-arithmetic') throw new Error(`--as-adapter works for linear and task-arithmetic (exact as one adapter); ${method.name} needs the full weights: drop --as-adapter`);
    const adapters = await Promise.all(args.models.map(openPeftFolder));
    const total = options.weights.reduce((a, b) => a + b, 0);
    const coeff = options.weights.map((w) => (method.name === 'linear' ? w / total : w * options.lambda));
    const merged = concatAdapters(adapters, coeff);
    await writeFolder(args.out, peftFiles(merged, { baseModel: String(adapters[0].config.base_model_name_or_path ?? '') }));
    console.log(`merged ${adapters.length} adapters (${method.name}) into one rank-${merged.rank} adapter → ${args.out} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    return;
  }

  const models: TensorSourceModel[] = [];
  for (const [i, dir] of args.models.entries()) {
    models.push(peft[i] ? loraDeltaSource(base!.source, await openPeftFolder(dir)) : (await openHfModelFolder(dir)).source);
  }
  await mkdir(args.out, { recursive: true });
  const sink = await safetensorsFileSink(join(args.out, 'model.safetensors'), args.dtype);
  const { tensors, parameters } = await mergeModels({
    method, options, base: base?.source ?? null, models, sink,
    onTensor: (name, done, total) => { if (done % 20 === 0 || done === total) process.stdout.write(`\r${done}/${total} tensors`); },
  });
  process.stdout.write('\n');
  const from = base?.dir ?? args.models[0];
  const config = base?.configJson ?? (await openHfModelFolder(args.models[0])).configJson;
  const dtypeName = { F32: 'float32', F16: 'float16', BF16: 'bfloat16' }[args.dtype];
  await writeFile(join(args.out, 'config.json'), `${JSON.stringify({ ...config, torch_dtype: dtypeName }, null, 2)}\n`);
  for (const f of COPIED) if (existsSync(join(from, f))) await copyFile(join(from, f), join(args.out, f));
  await writeFile(join(args.out, 'merge_config.json'), `${JSON.stringify({ method: method.name, options, base: args.base ?? null, models: args.models }, null, 2)}\n`);
  const seconds = (performance.now() - t0) / 1000;
  console.log(`merged ${models.length} models with ${method.name}: ${tensors} tensors, ${(parameters / 1e6).toFixed(2)} M parameters → ${args.out} in ${seconds.toFixed(1)} s (${(seconds / (parameters / 1e7)).toFixed(2)} s per 10 M parameters)`);
}

main().catch((e) => {
  console.error(`merge failed: ${(e as Error).message}`);
  process.exit(1);
});
