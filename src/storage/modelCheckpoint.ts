// The model inside a checkpoint: config, weights (group 'model', HF names) and LoRA adapters (group
// 'lora', PEFT names), for export and for loading a model without resuming its training.
import { type ModelConfig, validateModelConfig } from '../model/config';
import { type LoraConfig, validateLoraConfig } from '../model/lora';
import type { CheckpointReader } from './checkpoint';

export const MODEL_GROUP = 'model';
export const LORA_GROUP = 'lora';

export interface CheckpointModel {
  cfg: ModelConfig;
  params: Map<string, Float32Array>;
  lora?: { config: LoraConfig; tensors: Map<string, Float32Array> };
}

export async function readCheckpointModel(reader: CheckpointReader): Promise<CheckpointModel> {
  const m = reader.manifest;
  let cfg: ModelConfig;
  try {
    cfg = validateModelConfig(m.model as unknown as ModelConfig);
  } catch (e) {
    throw new Error(`checkpoint '${m.id}': its model config is not valid (${(e as Error).message})`);
  }
  const params = await reader.group(MODEL_GROUP);
  if (params.size === 0) throw new Error(`checkpoint '${m.id}' holds no model weights (group '${MODEL_GROUP}')`);
  const out: CheckpointModel = { cfg, params };
  if (m.lora && reader.tensors(LORA_GROUP).length > 0) {
    out.lora = { config: validateLoraConfig(m.lora as unknown as LoraConfig), tensors: await reader.group(LORA_GROUP) };
  }
  return out;
}
