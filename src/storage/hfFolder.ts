// Node: Hugging Face layout folders as streaming tensor sources and sinks (merge, export, import).
//   model folder:  config.json + model.safetensors (or model.safetensors.index.json + shards)
//   PEFT folder:   adapter_config.json + adapter_model.safetensors
// Files are opened as Blobs (fs.openAsBlob), so a tensor is read only when asked for.
import { existsSync, openAsBlob } from 'node:fs';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ModelConfig } from '../model/config';
import { readHfConfig } from '../model/hfConfig';
import { parameterTable } from '../model/parameters';
import { SafetensorsBlobFile } from '../model/safetensorsStream';
import type { AdapterWeights } from '../train/merge/loraMerge';
import type { TensorSink, TensorSourceModel } from '../train/merge/mergeStream';
import type { ExportFile } from './export/files';
import { type SinkDtype, safetensorsSink } from './safetensorsSink';

export interface HfModelFolder {
  dir: string;
  cfg: ModelConfig;
  warnings: string[];
  /** config.json as parsed (copied to merge outputs). */
  configJson: Record<string, unknown>;
  source: TensorSourceModel;
}

const shapeText = (s: readonly number[]) => `[${s.join(', ')}]`;

async function readJson(path: string, what: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    throw new Error(`${what}: ${path} is missing`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new Error(`${what}: ${path} is not valid JSON (${(e as Error).message})`);
  }
}

/** Tensor name → the safetensors file holding it (one file, or the shards of an index). */
async function openWeights(dir: string): Promise<Map<string, SafetensorsBlobFile>> {
  const single = join(dir, 'model.safetensors');
  const index = join(dir, 'model.safetensors.index.json');
  const byName = new Map<string, SafetensorsBlobFile>();
  if (existsSync(single)) {
    const f = await SafetensorsBlobFile.open(await openAsBlob(single));
    for (const n of f.names) byName.set(n, f);
    return byName;
  }
  if (!existsSync(index)) throw new Error(`model folder ${dir}: no model.safetensors (or model.safetensors.index.json): is this a Hugging Face model folder?`);
  const map = (await readJson(index, `model folder ${dir}`)).weight_map as Record<string, string> | undefined;
  if (!map) throw new Error(`model folder ${dir}: model.safetensors.index.json has no weight_map`);
  const shards = new Map<string, SafetensorsBlobFile>();
  for (const [name, file] of Object.entries(map)) {
    if (!shards.has(file)) shards.set(file, await SafetensorsBlobFile.open(await openAsBlob(join(dir, file))));
    byName.set(name, shards.get(file)!);
  }
  return byName;
}

/** Opens an HF Qwen3 model folder; checks every parameter of its config is present with its shape. */
export async function openHfModelFolder(dir: string): Promise<HfModelFolder> {
  const configJson = await readJson(join(dir, 'config.json'), `model folder ${dir}`);
  const { cfg, warnings } = readHfConfig(configJson);
  const files = await openWeights(dir);
  const table = parameterTable(cfg);
  const problems: string[] = [];
  for (const p of table) {
    const f = files.get(p.name);
    if (!f) problems.push(`'${p.name}' is missing`);
    else if (shapeText(f.info(p.name).shape) !== shapeText(p.shape)) problems.push(`'${p.name}' is ${shapeText(f.info(p.name).shape)}, config.json says ${shapeText(p.shape)}`);
  }
  if (problems.length) throw new Error(`model folder ${dir} does not match its config.json: ${problems.slice(0, 6).join('; ')}${problems.length > 6 ? '; …' : ''}`);
  const shapes = new Map(table.map((p) => [p.name, p.shape]));
  return {
    dir, cfg, warnings, configJson,
    source: {
      label: dir,
      names: () => table.map((p) => p.name),
      shape: (name) => {
        const s = shapes.get(name);
        if (!s) throw new Error(`${dir}: no parameter '${name}'`);
        return s;
      },
      read: async (name) => (await files.get(name)!.tensor(name)).data as Float32Array,
    },
  };
}

export interface PeftFolder extends AdapterWeights {
  config: Record<string, unknown>;
}

export function isPeftFolder(dir: string): boolean {
  return existsSync(join(dir, 'adapter_config.json'));
}

/** Opens a PEFT LoRA folder (adapters are small: read whole). */
export async function openPeftFolder(dir: string): Promise<PeftFolder> {
  const config = await readJson(join(dir, 'adapter_config.json'), `adapter folder ${dir}`);
  if (config.peft_type !== undefined && config.peft_type !== 'LORA') throw new Error(`adapter folder ${dir}: peft_type ${JSON.stringify(config.peft_type)}; only LORA adapters can be merged`);
  const rank = config.r;
  const alpha = config.lora_alpha;
  if (typeof rank !== 'number' || typeof alpha !== 'number') throw new Error(`adapter folder ${dir}: adapter_config.json needs numbers r and lora_alpha`);
  if (config.use_rslora || config.use_dora) throw new Error(`adapter folder ${dir}: rsLoRA / DoRA adapters are not supported (plain LoRA, s = alpha / r)`);
  const path = join(dir, 'adapter_model.safetensors');
  if (!existsSync(path)) throw new Error(`adapter folder ${dir}: adapter_model.safetensors is missing`);
  const file = await SafetensorsBlobFile.open(await openAsBlob(path));
  const tensors = new Map<string, Float32Array>();
  for (const name of file.names) tensors.set(name.replace(/\.default\.weight$/, '.weight'), (await file.tensor(name)).data as Float32Array);
  return { label: dir, rank, alpha, tensors, config };
}

/** A safetensors file written tensor by tensor; the file appears under its name only when complete. */
export async function safetensorsFileSink(path: string, dtype: SinkDtype = 'F32'): Promise<TensorSink> {
  const tmp = `${path}.partial`;
  const fh = await open(tmp, 'w');
  const inner = safetensorsSink(async (bytes) => { await fh.write(bytes); }, dtype);
  let closed = false;
  const abort = async () => {
    if (closed) return;
    closed = true;
    await fh.close();
    await rm(tmp, { force: true });
  };
  return {
    begin: (entries) => inner.begin(entries).catch(async (e) => { await abort(); throw e; }),
    write: (name, data) => inner.write(name, data).catch(async (e) => { await abort(); throw e; }),
    async end() {
      await inner.end();
      await fh.datasync();
      await fh.close();
      closed = true;
      await rename(tmp, path);
    },
  };
}

/** Writes export files into a folder (created if needed). */
export async function writeFolder(dir: string, files: ExportFile[]): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const f of files) {
    const fh = await open(join(dir, f.path), 'w');
    try {
      for (const p of f.parts) await fh.write(p);
    } finally {
      await fh.close();
    }
  }
}
