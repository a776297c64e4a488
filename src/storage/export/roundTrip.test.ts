// Export → import round trips give identical logits: HF folder (zipped, as the page downloads it)
// and PEFT adapter (attached to the base again). Logits from our GPU forward.
import { beforeAll, describe, expect, it } from 'vitest';
import type { GpuRuntime } from '../../gpu/runtime';
import { testRuntime } from '../../gpu/testDevice';
import { planActivations, releaseActivations } from '../../model/activations';
import { type ModelConfig, PRESETS } from '../../model/config';
import { modelForward, writeBatch } from '../../model/forward';
import { initialLoraWeights, type LoraConfig, LoraAdapters } from '../../model/lora';
import { attachLora } from '../../model/loraAttach';
import { GpuWeights, initialWeights } from '../../model/weights';
import { ByteTokenizer } from '../../tokenizer';
import { Rng } from '../../util/rng';
import { exportFiles, exportZip } from './exportModel';
import { joinParts } from './files';
import { filesFromZip, importHfModel, importPeftAdapter } from './importModel';

let rt: GpuRuntime;
beforeAll(async () => { rt = await testRuntime(); });

const cfg: ModelConfig = PRESETS.nano;
const tok = new ByteTokenizer();
const ids = Int32Array.from({ length: 12 }, (_, i) => (i * 37 + 5) % 256);

async function logits(params: Map<string, Float32Array>, lora?: { config: LoraConfig; tensors: Map<string, Float32Array> }): Promise<Float32Array> {
  const w = new GpuWeights(rt, cfg, params);
  const adapters = lora ? new LoraAdapters(rt, cfg, lora.config, lora.tensors) : undefined;
  if (adapters) attachLora(rt, w, adapters);
  const acts = planActivations(rt, cfg, 1, ids.length, lora?.config);
  try {
    writeBatch(rt, w, acts, { inputIds: ids });
    modelForward(rt, w, acts);
    return await rt.readF32(acts.logits);
  } finally {
    releaseActivations(rt, acts);
    adapters?.destroy();
    w.destroy();
  }
}

describe('export → import round trip', () => {
  it('HF folder as a zip: the imported model gives identical logits; generation_config names our stop ids', async () => {
    const params = initialWeights(cfg, 3);
    const files = exportFiles({ cfg, params, ids: tok }, 'hf');
    expect(files.map((f) => f.path)).toEqual(['config.json', 'model.safetensors', 'generation_config.json']);
    const gen = JSON.parse(new TextDecoder().decode(joinParts(files[2])));
    expect(gen.eos_token_id).toEqual([tok.eosId, tok.padId]);
    const zip = await exportZip(files, 'nano-model');
    const imported = await importHfModel(await filesFromZip(new Uint8Array(await zip.arrayBuffer())));
    expect(imported.cfg).toEqual(cfg);
    expect(await logits(imported.params)).toEqual(await logits(params));
  });

  it('PEFT adapter: export → import → attach gives identical logits; HF export of it merges the adapter in', async () => {
    const params = initialWeights(cfg, 4);
    const config: LoraConfig = { rank: 4, alpha: 8, targets: ['q_proj', 'v_proj', 'down_proj'] };
    const tensors = initialLoraWeights(cfg, config, 5);
    const rng = new Rng(6);
    for (const [name, v] of tensors) if (name.includes('lora_B')) v.forEach((_, i) => (v[i] = rng.normal(0, 0.05)));
    const src = { cfg, params, ids: tok, lora: { config, tensors } };
    const files = new Map(exportFiles(src, 'peft').map((f) => [f.path, joinParts(f)]));
    const adapter = await importPeftAdapter(files);
    expect(adapter.lora).toEqual(config);
    const want = await logits(params, { config, tensors });
    expect(await logits(params, { config: adapter.lora, tensors: adapter.tensors })).toEqual(want);
    // merged into the base (HF export of a LoRA model): the same function up to rounding
    const merged = await importHfModel(new Map(exportFiles(src, 'hf').map((f) => [f.path, joinParts(f)])));
    const got = await logits(merged.params);
    let err = 0;
    let max = 0;
    for (let i = 0; i < want.length; i++) { err = Math.max(err, Math.abs(got[i] - want[i])); max = Math.max(max, Math.abs(want[i])); }
    expect(err / max).toBeLessThan(1e-4);
    expect(() => exportFiles({ cfg, params, ids: tok }, 'peft')).toThrow(/--format peft needs a model with LoRA adapters/);
  });
});
