// Loading what we export: an HF folder or a PEFT folder, given as files by name (a folder read in
// Node, files picked in the page, or the entries of our zip). Weights are read as Blobs, tensor
// by tensor (src/model/checkpointIO).
import { type LoadedModel, modelFromSafetensorsBlob } from '../../model/checkpointIO';
import type { LoraConfig } from '../../model/lora';
import { validateLoraConfig } from '../../model/lora';
import { SafetensorsBlobFile } from '../../model/safetensorsStream';
import type { LoraTarget } from '../../model/parameters';
import { unzipFiles } from './zip';

export type ImportFiles = Map<string, Blob | Uint8Array>;

const asBlob = (f: Blob | Uint8Array) => (f instanceof Blob ? f : new Blob([f as Uint8Array<ArrayBuffer>]));
const asText = async (f: Blob | Uint8Array) => (f instanceof Blob ? f.text() : new TextDecoder().decode(f));

/** Files of a zip, by path (a zip with one top folder is opened into it). */
export async function filesFromZip(bytes: Uint8Array): Promise<ImportFiles> {
  const files = await unzipFiles(bytes);
  const names = [...files.keys()].filter((n) => !n.endsWith('/'));
  const tops = new Set(names.map((n) => n.split('/')[0]));
  const strip = tops.size === 1 && names.every((n) => n.includes('/'));
  return new Map(names.map((n) => [strip ? n.slice(n.indexOf('/') + 1) : n, files.get(n)!]));
}

export function isPeftExport(files: ImportFiles): boolean {
  return files.has('adapter_config.json');
}

/** An HF model: config.json + model.safetensors. */
export async function importHfModel(files: ImportFiles): Promise<LoadedModel> {
  const config = files.get('config.json');
  const weights = files.get('model.safetensors');
  if (!config || !weights) {
    const missing = [!config && 'config.json', !weights && 'model.safetensors'].filter(Boolean).join(' and ');
    throw new Error(`import: ${missing} missing (found ${[...files.keys()].join(', ') || 'no files'}); pick an exported HF folder or its zip`);
  }
  return modelFromSafetensorsBlob(await asText(config), asBlob(weights));
}

export interface ImportedAdapter {
  lora: LoraConfig;
  /** Adapter tensors by PEFT name. */
  tensors: Map<string, Float32Array>;
}

/** A PEFT LoRA adapter: adapter_config.json + adapter_model.safetensors. */
export async function importPeftAdapter(files: ImportFiles): Promise<ImportedAdapter> {
  const config = files.get('adapter_config.json');
  const weights = files.get('adapter_model.safetensors');
  if (!config || !weights) throw new Error('import: a PEFT adapter needs adapter_config.json and adapter_model.safetensors');
  const c = JSON.parse(await asText(config)) as { r?: number; lora_alpha?: number; target_modules?: string[] };
  const lora = validateLoraConfig({ rank: c.r ?? NaN, alpha: c.lora_alpha ?? NaN, targets: (c.target_modules ?? []) as LoraTarget[] });
  const file = await SafetensorsBlobFile.open(asBlob(weights));
  const tensors = new Map<string, Float32Array>();
  for (const name of file.names) tensors.set(name, (await file.tensor(name)).data as Float32Array);
  return { lora, tensors };
}
