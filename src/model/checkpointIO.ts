// Model weights ↔ Hugging Face layout: config.json + model.safetensors with HF tensor names, so
// checkpoints load in transformers and real Qwen3 checkpoints load here. Every expected tensor is
// checked (presence, shape, float dtype) before any is decoded; extra tensors are refused (named),
// except RoPE buffers, which only warn.

import type { ModelConfig } from './config';
import { hfConfigJson, readHfConfig } from './hfConfig';
import { type ParameterSpec, parameterTable } from './parameters';
import { type SafetensorsIndex, SafetensorsFile, type TensorToWrite, safetensorsParts, writeSafetensors } from './safetensors';
import { type ProgressCallback, SafetensorsBlobFile } from './safetensorsStream';

/** Parameters by HF name, each a flat row-major Float32Array of the parameterTable shape. */
export type ModelParams = Map<string, Float32Array>;

export interface LoadedModel {
  cfg: ModelConfig;
  params: ModelParams;
  /** Things ignored on the way (extra tensors, a tied lm_head, config settings); show them to the user. */
  warnings: string[];
}

export type SaveDtype = 'F32' | 'F16' | 'BF16';
const TORCH_DTYPE = { F32: 'float32', F16: 'float16', BF16: 'bfloat16' } as const;
const FLOAT_DTYPES = new Set(['F32', 'F16', 'BF16']);
const MAX_LISTED = 10; // problems shown in one error message

const shapeText = (shape: readonly number[]) => `[${shape.join(', ')}]`;
const numel = (shape: readonly number[]) => shape.reduce((a, b) => a * b, 1);

function listProblems(what: string, problems: string[]): Error {
  const shown = problems.slice(0, MAX_LISTED).join('; ');
  const more = problems.length > MAX_LISTED ? `; and ${problems.length - MAX_LISTED} more` : '';
  return new Error(`${what} (${problems.length} problem${problems.length > 1 ? 's' : ''}): ${shown}${more}`);
}

/** Tensors to write, in parameterTable order, after checking the map matches the config exactly. */
function tensorsToWrite(cfg: ModelConfig, params: ModelParams, dtype: SaveDtype): Map<string, TensorToWrite> {
  const table = parameterTable(cfg);
  const problems: string[] = [];
  const out = new Map<string, TensorToWrite>();
  for (const p of table) {
    const data = params.get(p.name);
    if (!data) problems.push(`parameter '${p.name}' ${shapeText(p.shape)} is missing`);
    else if (data.length !== numel(p.shape)) problems.push(`parameter '${p.name}': expected ${numel(p.shape)} values for shape ${shapeText(p.shape)}, found ${data.length}`);
    else out.set(p.name, { shape: p.shape, data, dtype });
  }
  const expected = new Set(table.map((p) => p.name));
  for (const name of params.keys()) {
    if (!expected.has(name)) {
      problems.push(name === 'lm_head.weight'
        ? "parameter 'lm_head.weight' is given but the config ties embeddings: drop it or set tieWordEmbeddings false"
        : `parameter '${name}' is not part of this config's model`);
    }
  }
  if (problems.length) throw listProblems('cannot save the model', problems);
  return out;
}

/** config.json text and model.safetensors bytes in HF layout (metadata format "pt", as transformers requires). */
export function modelToSafetensors(cfg: ModelConfig, params: ModelParams, dtype: SaveDtype = 'F32'): { configJson: string; safetensors: Uint8Array<ArrayBuffer> } {
  return {
    configJson: hfConfigJson(cfg, TORCH_DTYPE[dtype]),
    safetensors: writeSafetensors(tensorsToWrite(cfg, params, dtype), { format: 'pt' }),
  };
}

/** Like modelToSafetensors, but the weights as Blob parts: no single huge array for big models. */
export function modelToSafetensorsParts(cfg: ModelConfig, params: ModelParams, dtype: SaveDtype = 'F32'): { configJson: string; parts: Uint8Array<ArrayBuffer>[] } {
  return {
    configJson: hfConfigJson(cfg, TORCH_DTYPE[dtype]),
    parts: safetensorsParts(tensorsToWrite(cfg, params, dtype), { format: 'pt' }),
  };
}

/** Checks a file's tensors against the config; throws listing every mismatch, returns warnings. */
/** What the tensor check reads of a file, or of several shards together (./hfFolder). */
export interface TensorDirectory {
  readonly names: string[];
  has(name: string): boolean;
  info(name: string): { dtype: string; shape: number[] };
}

/** Checks a file's tensors against the config; throws listing every mismatch, returns warnings. */
export function checkModelTensors(cfg: ModelConfig, file: TensorDirectory): { table: ParameterSpec[]; warnings: string[] } {
  return checkTensors(cfg, file);
}

function checkTensors(cfg: ModelConfig, file: TensorDirectory): { table: ParameterSpec[]; warnings: string[] } {
  const table = parameterTable(cfg);
  const problems: string[] = [];
  const warnings: string[] = [];
  for (const p of table) {
    if (!file.has(p.name)) {
      const unprefixed = p.name.replace(/^model\./, '');
      const hint = p.name === 'lm_head.weight'
        ? ' (config.json sets tie_word_embeddings false, so the LM head must be in the file)'
        : file.has(unprefixed) ? ` (found '${unprefixed}': the file looks like a bare Qwen3Model; names need the 'model.' prefix)` : '';
      problems.push(`tensor '${p.name}' ${shapeText(p.shape)} is missing${hint}`);
      continue;
    }
    const info = file.info(p.name);
    if (!FLOAT_DTYPES.has(info.dtype)) problems.push(`tensor '${p.name}': expected a float dtype (F32, F16 or BF16), found ${info.dtype}`);
    if (shapeText(info.shape) !== shapeText(p.shape)) {
      const transposed = info.shape.length === 2 && shapeText([info.shape[1], info.shape[0]]) === shapeText(p.shape)
        ? ' (transposed? HF stores linear weights as (out, in))' : '';
      problems.push(`tensor '${p.name}': expected shape ${shapeText(p.shape)}, found ${shapeText(info.shape)}${transposed}`);
    }
  }
  if (problems.length) throw listProblems('checkpoint does not match config.json', problems);

  const expected = new Set(table.map((p) => p.name));
  if (cfg.tieWordEmbeddings && file.has('lm_head.weight')) {
    warnings.push("lm_head.weight ignored: config.json ties embeddings, so the LM head reuses model.embed_tokens.weight");
  }
  const extra = file.names.filter((n) => !expected.has(n) && n !== 'lm_head.weight');
  const listed = (names: string[]) => `${names.slice(0, 5).map((n) => `'${n}'`).join(', ')}${names.length > 5 ? ', …' : ''}`;
  const plural = (n: number) => `${n} tensor${n > 1 ? 's' : ''}`;
  // RoPE inverse frequencies, which some HF checkpoints carry, are buffers: harmless. Anything else
  // extra means the file is not this model (layers the config drops) or not a model at all.
  const buffers = extra.filter((n) => /\.rotary_emb\.inv_freq$/.test(n));
  const layerOf = (n: string) => Number(/^model\.layers\.(\d+)\./.exec(n)?.[1] ?? -1);
  const deeper = extra.filter((n) => !buffers.includes(n) && layerOf(n) >= cfg.numLayers);
  const foreign = extra.filter((n) => !buffers.includes(n) && !deeper.includes(n));
  if (deeper.length) {
    const layers = Math.max(...deeper.map(layerOf)) + 1;
    throw new Error(`checkpoint does not match config.json: the file has ${layers} layers (${plural(deeper.length)} beyond layer ${cfg.numLayers - 1}, e.g. ${listed(deeper)}) but config.json says num_hidden_layers ${cfg.numLayers}; use the config.json that came with the weights`);
  }
  if (foreign.length) {
    const verb = foreign.length > 1 ? 'are' : 'is';
    const hint = foreign.includes('loss') || foreign.includes('logits') ? ' (it looks like a debug-state output: gradients, not weights)' : '';
    throw new Error(`not a Qwen3 model: the file holds ${plural(foreign.length)} that ${verb} not model parameters: ${listed(foreign)}${hint}; pick the model's model.safetensors`);
  }
  if (buffers.length) warnings.push(`${plural(buffers.length)} not used by a Qwen3 model ignored: ${listed(buffers)}`);
  return { table, warnings };
}

/** Reads config.json (text or object) and an in-memory model.safetensors; F16/BF16 become Float32Array. */
export function modelFromSafetensors(configJson: string | unknown, bytes: ArrayBufferLike | Uint8Array): LoadedModel {
  const { cfg, warnings: configWarnings } = readHfConfig(configJson);
  const file = SafetensorsFile.fromBytes(bytes);
  const { table, warnings } = checkTensors(cfg, file);
  const params: ModelParams = new Map(table.map((p) => [p.name, file.tensor(p.name).data as Float32Array]));
  return { cfg, params, warnings: [...configWarnings, ...warnings] };
}

/** Same from a Blob/File (file picker): reads the header, checks it, then only the needed tensors. */
export async function modelFromSafetensorsBlob(configJson: string | unknown, blob: Blob, onProgress?: ProgressCallback): Promise<LoadedModel> {
  const { cfg, warnings: configWarnings } = readHfConfig(configJson);
  const file = await SafetensorsBlobFile.open(blob);
  const { table, warnings } = checkTensors(cfg, file);
  const needed = new Set(table.map((p) => p.name));
  const tensors = await file.readAll(onProgress, (name) => needed.has(name));
  const params: ModelParams = new Map(table.map((p) => [p.name, tensors.get(p.name)!.data as Float32Array]));
  return { cfg, params, warnings: [...configWarnings, ...warnings] };
}
