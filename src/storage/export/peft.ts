// LoRA adapters as a PEFT folder: adapter_config.json + adapter_model.safetensors (PEFT names,
// base_model.model.<module>.lora_{A,B}.weight), what `PeftModel.from_pretrained(base, dir)` loads.
import { peftAdapterConfig, type LoraConfig } from '../../model/lora';
import { LORA_TARGETS, type LoraTarget } from '../../model/parameters';
import { safetensorsParts } from '../../model/safetensors';
import { type ExportFile, jsonFile } from './files';

export interface AdapterExport {
  rank: number;
  alpha: number;
  /** Tensors by PEFT name; A (r, in), B (out, r). */
  tensors: Map<string, Float32Array>;
}

const PEFT_NAME = /^base_model\.model\.model\.layers\.\d+\.(?:self_attn|mlp)\.(\w+)\.lora_([AB])\.weight$/;

/** Shapes from the names and sizes: A has `rank` rows, B has `rank` columns. */
function shapeOf(name: string, data: Float32Array, rank: number): [number, number] {
  const m = PEFT_NAME.exec(name);
  if (!m) throw new Error(`PEFT export: '${name}' is not a PEFT LoRA tensor name of a Qwen3 layer`);
  const other = data.length / rank;
  if (!Number.isInteger(other)) throw new Error(`PEFT export: '${name}' has ${data.length} values, not a multiple of rank ${rank}`);
  return m[2] === 'A' ? [rank, other] : [other, rank];
}

/** The target modules the tensors adapt, in LORA_TARGETS order. */
export function adapterTargets(names: Iterable<string>): LoraTarget[] {
  const found = new Set<string>();
  for (const n of names) {
    const m = PEFT_NAME.exec(n);
    if (m) found.add(m[1]);
  }
  return LORA_TARGETS.filter((t) => found.has(t));
}

export function peftFiles(a: AdapterExport, opts: { baseModel?: string } = {}): ExportFile[] {
  const lora: LoraConfig = { rank: a.rank, alpha: a.alpha, targets: adapterTargets(a.tensors.keys()) };
  const tensors = new Map([...a.tensors].map(([name, data]) => [name, { shape: shapeOf(name, data, a.rank), data }]));
  return [
    jsonFile('adapter_config.json', peftAdapterConfig(lora, opts.baseModel ?? '')),
    { path: 'adapter_model.safetensors', parts: safetensorsParts(tensors, { format: 'pt' }) },
  ];
}
