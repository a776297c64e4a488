// Parameter table of the float64 reference Qwen3 model: HF names, shapes, initialisation.
// Shapes use the legend of src/model/config.ts; HF Linear weights are (out, in), y = x·Wᵀ.
import type { ModelConfig } from '../model/config';
import { validateModelConfig } from '../model/config';
import type { Rng } from '../util/rng';

export interface ParameterShape {
  /** HF checkpoint name, e.g. `model.layers.0.self_attn.q_proj.weight`. */
  name: string;
  /** Row-major shape, e.g. [Hq·D, C]. */
  shape: number[];
}

/** Parameters of the reference model, keyed by HF name (row-major float64). */
export type ReferenceParameters = Map<string, Float64Array>;

/** `model.layers.${l}.${suffix}` */
export function layerParamName(l: number, suffix: string): string {
  return `model.layers.${l}.${suffix}`;
}

/** The name the LM head reads: `lm_head.weight`, or the embedding when tied. */
export function lmHeadName(cfg: ModelConfig): string {
  return cfg.tieWordEmbeddings ? 'model.embed_tokens.weight' : 'lm_head.weight';
}

/** Every parameter in planning order: embedding, layers 0…L−1, final norm, LM head (untied only). */
export function referenceParameterShapes(cfg: ModelConfig): ParameterShape[] {
  validateModelConfig(cfg);
  const { vocabSize: V, hiddenSize: C, intermediateSize: F, numHeads: Hq, numKvHeads: Hkv, headDim: D } = cfg;
  const shapes: ParameterShape[] = [{ name: 'model.embed_tokens.weight', shape: [V, C] }];
  for (let l = 0; l < cfg.numLayers; l++) {
    const p = (suffix: string, shape: number[]) => shapes.push({ name: layerParamName(l, suffix), shape });
    p('input_layernorm.weight', [C]);
    p('self_attn.q_proj.weight', [Hq * D, C]);
    p('self_attn.k_proj.weight', [Hkv * D, C]);
    p('self_attn.v_proj.weight', [Hkv * D, C]);
    p('self_attn.o_proj.weight', [C, Hq * D]);
    p('self_attn.q_norm.weight', [D]);
    p('self_attn.k_norm.weight', [D]);
    p('post_attention_layernorm.weight', [C]);
    p('mlp.gate_proj.weight', [F, C]);
    p('mlp.up_proj.weight', [F, C]);
    p('mlp.down_proj.weight', [C, F]);
  }
  shapes.push({ name: 'model.norm.weight', shape: [C] });
  if (!cfg.tieWordEmbeddings) shapes.push({ name: 'lm_head.weight', shape: [V, C] });
  return shapes;
}

/** Number of values in a shape. */
export function shapeSize(shape: readonly number[]): number {
  return shape.reduce((a, b) => a * b, 1);
}

/** Matrices ~ normal(0, 0.02), norm weights = 1 (HF Qwen3 `_init_weights`). */
export function initReferenceParameters(cfg: ModelConfig, rng: Rng): ReferenceParameters {
  const params: ReferenceParameters = new Map();
  for (const { name, shape } of referenceParameterShapes(cfg)) {
    const w = new Float64Array(shapeSize(shape));
    if (shape.length === 1) w.fill(1);
    else for (let i = 0; i < w.length; i++) w[i] = rng.normal(0, 0.02);
    params.set(name, w);
  }
  return params;
}

/** The parameter or a message naming it and what was expected. */
export function getParameter(params: ReferenceParameters, name: string, size: number): Float64Array {
  const w = params.get(name);
  if (!w) throw new Error(`reference model: parameter ${name} is missing`);
  if (w.length !== size) throw new Error(`reference model: parameter ${name} has ${w.length} values, expected ${size}`);
  return w;
}
