// What the CLI and the page export, from the model in memory (host Float32Arrays by HF name, and
// LoRA adapters by PEFT name): HF folder, PEFT folder, ONNX file; and a zip of a folder.
import type { ModelConfig } from '../../model/config';
import type { ModelParams } from '../../model/checkpointIO';
import type { SaveDtype } from '../../model/checkpointIO';
import { type LoraConfig, loraParameterTable, loraScale } from '../../model/lora';
import { addLoraDelta } from '../../train/merge/loraMerge';
import type { ExportFile } from './files';
import { type GenerationIds, hfModelFiles } from './hf';
import { type DecoderOnnxOptions, decoderOnnxFiles } from './onnx/decoderOnnx';
import { peftFiles } from './peft';
import { zipParts } from './zip';

export type ExportFormat = 'hf' | 'peft' | 'onnx';

export interface ExportSource {
  cfg: ModelConfig;
  /** Base (or full) weights by HF name. */
  params: ModelParams;
  /** LoRA adapters, when the model has them. */
  lora?: { config: LoraConfig; tensors: Map<string, Float32Array> };
  ids: GenerationIds;
  tokenizerFiles?: { tokenizerJson: unknown; tokenizerConfig: unknown };
}

/** Weights with the adapters merged in (W + s·B·A), what HF and ONNX exports of a LoRA model carry. */
export function mergedParams(src: ExportSource): ModelParams {
  if (!src.lora) return src.params;
  const out = new Map(src.params);
  const s = loraScale(src.lora.config);
  for (const p of loraParameterTable(src.cfg, src.lora.config)) {
    if (p.which !== 'A') continue;
    const A = src.lora.tensors.get(p.name);
    const B = src.lora.tensors.get(p.name.replace('lora_A', 'lora_B'));
    if (!A || !B) throw new Error(`export: adapter tensors of '${p.base}' are missing`);
    out.set(p.base, addLoraDelta(out.get(p.base)!, A, B, src.lora.config.rank, s, p.base));
  }
  return out;
}

export function exportFiles(src: ExportSource, format: ExportFormat, opts: { dtype?: SaveDtype; onnx?: DecoderOnnxOptions; baseModel?: string } = {}): ExportFile[] {
  if (format === 'peft') {
    if (!src.lora) throw new Error('export: --format peft needs a model with LoRA adapters (this one trains all its weights): use --format hf');
    return peftFiles({ rank: src.lora.config.rank, alpha: src.lora.config.alpha, tensors: src.lora.tensors }, { baseModel: opts.baseModel });
  }
  if (format === 'onnx') {
    // large models: the weights go to an external-data file beside model.onnx (protobuf's 2 GiB cap)
    const onnx = decoderOnnxFiles(src.cfg, mergedParams(src), opts.onnx);
    return [{ path: 'model.onnx', parts: [onnx.model] }, ...(onnx.data ? [{ path: onnx.data.path, parts: onnx.data.parts }] : [])];
  }
  return hfModelFiles(src.cfg, mergedParams(src), { dtype: opts.dtype, ids: src.ids, tokenizerFiles: src.tokenizerFiles });
}

/** The page's download: the export as one zip Blob (entries under `folder/`). */
export async function exportZip(files: ExportFile[], folder: string): Promise<Blob> {
  return new Blob(await zipParts(files.map((f) => ({ path: `${folder}/${f.path}`, parts: f.parts }))), { type: 'application/zip' });
}
