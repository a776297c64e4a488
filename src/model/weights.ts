// Model parameters on the GPU, keyed by HF name (parameterTable order), with their gradients.
// Storage: f32, or packed f16 for a frozen base (every 2-D weight: projections, embedding, LM head;
// two f16 per u32 word, src/ops/matmulPackedF16). A tensor larger than one storage binding (the
// Qwen3 embedding: 151 936 × 1 024) is stored as row parts, each its own buffer within the
// device's limits; the embedding lookup and the LM head (./embedTokens, ./lmHead) walk the parts,
// so the rest of the model never sees the split. Norm weights (1-D) are never split or packed.
import type { GpuRuntime } from '../gpu/runtime';
import type { Tensor } from '../gpu/tensor';
import { isPackedF16, packedWords, packF16, type PackedF16Tensor, unpackF16 } from '../ops/matmulPackedF16';
import { Rng } from '../util/rng';
import { type ModelConfig, validateModelConfig } from './config';
import { packF16Pairs, unpackF16Pairs } from './halfFloat';
import type { LoraAdapters } from './lora';
import { type ParameterSpec, parameterTable } from './parameters';

/** Rows [row0, row0 + rows) of a 2-D tensor, in one buffer. */
export interface RowPart {
  row0: number;
  rows: number;
  /** (rows, C): f32, or packed f16 (frozen). */
  tensor: Tensor;
}

export interface WeightStorage {
  /** Store every 2-D weight as packed f16: a frozen base (train it with LoRA). Default false (f32). */
  f16Base?: boolean;
  /**
   * Most bytes one buffer of the vocabulary tensors (embedding, LM head) may take; default the
   * device's min(maxStorageBufferBindingSize, maxBufferSize). Tests lower it to exercise the split.
   */
  maxPartBytes?: number;
}

const numel = (shape: readonly number[]) => shape.reduce((a, b) => a * b, 1);
const paddedBytes = (bytes: number) => Math.max(16, Math.ceil(bytes / 16) * 16);

/** Bytes of `rows` rows of C values stored as f32 or packed f16 (as the buffer pool pads them). */
export function partBytes(rows: number, C: number, f16: boolean): number {
  return paddedBytes(f16 ? 4 * packedWords(rows * C) : 4 * rows * C);
}

/**
 * Row ranges of an (R, C) tensor such that each part fits `maxBytes`: as few parts as possible,
 * balanced (sizes differ by at most one row). Throws when a single row does not fit.
 */
export function rowRanges(R: number, C: number, f16: boolean, maxBytes: number): { row0: number; rows: number }[] {
  if (partBytes(1, C, f16) > maxBytes) throw new Error(`one row of ${C} values (${partBytes(1, C, f16)} bytes) exceeds the ${maxBytes}-byte buffer limit`);
  let parts = Math.max(1, Math.ceil(partBytes(R, C, f16) / maxBytes));
  while (partBytes(Math.ceil(R / parts), C, f16) > maxBytes) parts++;
  const out: { row0: number; rows: number }[] = [];
  for (let p = 0, row0 = 0; p < parts; p++) {
    const rows = Math.floor(R / parts) + (p < R % parts ? 1 : 0);
    out.push({ row0, rows });
    row0 += rows;
  }
  return out;
}

/** The device's largest buffer that one binding can see. */
export function devicePartLimit(rt: GpuRuntime): number {
  return Math.min(rt.ctx.limits.maxStorageBufferBindingSize, rt.ctx.limits.maxBufferSize);
}

export class GpuWeights {
  readonly table: ParameterSpec[];
  /** Most bytes per buffer this model splits its tensors to. */
  readonly maxPartBytes: number;
  /**
   * LoRA adapters (set by attachLora in ./lora): forward, decode and backward add them, the base
   * weights are frozen (no base gradients), and the adapter tensors are reachable by PEFT name
   * through get/grad. Undefined: plain full-parameter model.
   */
  lora?: LoraAdapters;
  private readonly store = new Map<string, RowPart[]>();
  private readonly gradStore = new Map<string, RowPart[]>();
  /** False for a view that shares another model's base tensors (a LoRA reference): destroy() leaves them. */
  private readonly ownsBase: boolean;

  constructor(
    private readonly rt: GpuRuntime,
    readonly cfg: ModelConfig,
    /** Host values by HF name; null allocates uninitialised tensors to fill with writeRows (streaming load). */
    values: Map<string, Float32Array> | null,
    readonly storage: WeightStorage = {},
    shared?: Map<string, RowPart[]>,
  ) {
    validateModelConfig(cfg);
    this.table = parameterTable(cfg);
    this.maxPartBytes = storage.maxPartBytes ?? devicePartLimit(rt);
    this.ownsBase = !shared;
    if (shared) {
      for (const [k, v] of shared) this.store.set(k, v);
      return;
    }
    for (const p of this.table) {
      const v = values?.get(p.name);
      if (values && !v) throw new Error(`model weights: missing tensor '${p.name}' of shape [${p.shape.join(', ')}]`);
      if (v && v.length !== numel(p.shape)) throw new Error(`model weights: '${p.name}' has ${v.length} values, expected shape [${p.shape.join(', ')}] = ${numel(p.shape)}`);
      this.store.set(p.name, this.allocate(p, this.isF16(p)));
      if (v) this.writeRows(p.name, 0, v);
    }
  }

  /** Whether `p` is stored as packed f16 under this model's storage. */
  private isF16(p: ParameterSpec): boolean {
    return this.storage.f16Base === true && p.shape.length === 2;
  }

  private allocate(p: ParameterSpec, f16: boolean, label = p.name): RowPart[] {
    if (p.shape.length === 1) return [{ row0: 0, rows: p.shape[0], tensor: this.rt.empty(p.shape, 'f32', label) }];
    const [R, C] = p.shape;
    if (p.kind !== 'embedding') {
      // layer projections are never split (Qwen3-0.6B's largest is 12 MiB): one buffer or a clear refusal
      const bytes = partBytes(R, C, f16);
      const limit = devicePartLimit(this.rt);
      if (bytes > limit) {
        throw new Error(`model weights: '${p.name}' [${R}, ${C}] needs a ${bytes}-byte buffer; this adapter's storage bindings hold ${limit} bytes `
          + `(maxStorageBufferBindingSize / maxBufferSize): choose a model with smaller layers, or a GPU with larger bindings`);
      }
      return [{ row0: 0, rows: R, tensor: this.tensorFor(R, C, f16, label) }];
    }
    const ranges = rowRanges(R, C, f16, this.maxPartBytes);
    return ranges.map(({ row0, rows }) => ({
      row0, rows, tensor: this.tensorFor(rows, C, f16, ranges.length > 1 ? `${label}[rows ${row0}…${row0 + rows - 1}]` : label),
    }));
  }

  private tensorFor(rows: number, C: number, f16: boolean, label: string): Tensor {
    if (!f16) return this.rt.empty([rows, C], 'f32', label);
    const t = this.rt.empty([packedWords(rows * C)], 'u32', `${label}:f16`);
    return { ...t, packing: 'f16x2', logicalShape: [rows, C], logicalSize: rows * C } as PackedF16Tensor;
  }

  private spec(name: string): ParameterSpec {
    const p = this.table.find((q) => q.name === name);
    if (!p) throw new Error(`model weights: no parameter named '${name}'`);
    return p;
  }

  /** The parameter tensor `name` (or a LoRA adapter by PEFT name); throws naming it when absent or split. */
  get(name: string): Tensor {
    const parts = this.store.get(name);
    if (!parts) {
      const t = this.lora?.params.get(name);
      if (!t) throw new Error(`model weights: no parameter named '${name}'`);
      return t;
    }
    if (parts.length > 1) {
      throw new Error(`model weights: '${name}' is stored as ${parts.length} row parts (it exceeds one ${this.maxPartBytes}-byte buffer); read it with parts('${name}')`);
    }
    return parts[0].tensor;
  }

  /** The row parts of a base parameter (one part when it fits one buffer). */
  parts(name: string): RowPart[] {
    const parts = this.store.get(name);
    if (!parts) throw new Error(`model weights: no base parameter named '${name}'`);
    return parts;
  }

  /** Whether the base weights include packed-f16 tensors (then they are frozen). */
  get hasF16Base(): boolean {
    for (const parts of this.store.values()) if (isPackedF16(parts[0].tensor)) return true;
    return false;
  }

  grad(name: string): Tensor {
    if (this.lora) {
      const g = this.lora.grads.get(name);
      if (!g) throw new Error(`model gradients: '${name}' is frozen while LoRA adapters are attached; train w.trainableNames()`);
      return g;
    }
    const parts = this.gradParts(name);
    if (parts.length > 1) throw new Error(`model gradients: '${name}' is stored as ${parts.length} row parts; read it with gradParts('${name}')`);
    return parts[0].tensor;
  }

  /** Row parts of a base parameter's gradient (the same split as the f32 parameter). */
  gradParts(name: string): RowPart[] {
    const g = this.gradStore.get(name);
    if (!g) throw new Error(`model gradients: no gradient for '${name}' (call zeroGrads first${this.lora ? '; the base is frozen while LoRA adapters are attached' : ''})`);
    return g;
  }

  /** Number of base tensors with gradients allocated (0 while LoRA adapters are attached). */
  get baseGradCount(): number {
    return this.gradStore.size;
  }

  /** Allocates (once) and zeroes every gradient: the start of a gradient-accumulation window. */
  zeroGrads(): void {
    if (this.lora) return this.lora.zeroGrads(); // base frozen: its gradients are never allocated
    if (this.hasF16Base) throw new Error('model weights: the base is stored in f16 and frozen; attach LoRA adapters to train it (or load it in f32 for full-parameter training)');
    for (const p of this.table) {
      let g = this.gradStore.get(p.name);
      if (!g) this.gradStore.set(p.name, (g = this.allocate(p, false, `grad:${p.name}`)));
      for (const part of g) this.rt.clear(part.tensor);
    }
  }

  /** Frees the base gradients (attaching LoRA freezes the base). */
  releaseGrads(): void {
    for (const parts of this.gradStore.values()) for (const p of parts) this.rt.release(p.tensor);
    this.gradStore.clear();
  }

  /**
   * Writes rows row0… of a base parameter from host f32 values (whole rows; a 1-D tensor counts
   * as one row of its length): converted to f16 on the host when the tensor is stored packed, and
   * spread over its parts. Lets a loader fill a model a slice at a time.
   */
  writeRows(name: string, row0: number, values: Float32Array): void {
    const p = this.spec(name);
    const C = p.shape.length === 2 ? p.shape[1] : p.shape[0];
    const R = p.shape.length === 2 ? p.shape[0] : 1;
    if (values.length % C !== 0 || row0 < 0 || row0 + values.length / C > R) {
      throw new Error(`model weights: ${values.length} values at row ${row0} do not fit '${name}' [${p.shape.join(', ')}] in whole rows`);
    }
    const end = row0 + values.length / C;
    for (const part of this.parts(name)) {
      const from = Math.max(row0, part.row0);
      const to = Math.min(end, part.row0 + part.rows);
      if (from >= to) continue;
      const slice = values.subarray((from - row0) * C, (to - row0) * C);
      const at = (from - part.row0) * C; // element offset inside the part
      if (isPackedF16(part.tensor)) {
        if (at % 2 !== 0) throw new Error(`model weights: '${name}' is packed f16 with odd rows of ${C}; write it from an even element (row ${from})`);
        this.rt.writeAt(part.tensor, at / 2, packF16Pairs(slice));
      } else {
        this.rt.writeAt(part.tensor, at, slice);
      }
    }
  }

  /** Writes a whole base parameter from host f32 values. */
  write(name: string, values: Float32Array): void {
    const p = this.spec(name);
    if (values.length !== numel(p.shape)) throw new Error(`model weights: '${name}' takes ${numel(p.shape)} values, got ${values.length}`);
    this.writeRows(name, 0, values);
  }

  /**
   * The reference model of GRPO's KL term: the policy as it is now, frozen, no gradients.
   * Without LoRA: a GPU copy of every parameter. With LoRA: the SAME frozen base tensors (no copy)
   * plus a frozen copy of the adapters (rank r: ~1 % of the base), so it stays the policy at this
   * moment while the adapters train. Destroying it frees only what it copied.
   */
  frozenCopy(): GpuWeights {
    if (this.lora) {
      const view = new GpuWeights(this.rt, this.cfg, null, this.storage, this.store);
      view.lora = this.lora.frozenCopy();
      return view;
    }
    const copy = new GpuWeights(this.rt, this.cfg, null, { ...this.storage, maxPartBytes: this.maxPartBytes });
    for (const p of this.table) {
      const [src, dst] = [this.parts(p.name), copy.parts(p.name)];
      src.forEach((part, i) => this.rt.copy(part.tensor, dst[i].tensor));
    }
    return copy;
  }

  /** Reads every parameter back as f32 (packed f16 gives its f32 values; parts are joined). */
  async download(): Promise<Map<string, Float32Array>> {
    const out = new Map<string, Float32Array>();
    for (const p of this.table) out.set(p.name, await this.readParts(this.parts(p.name), numel(p.shape)));
    return out;
  }

  private async readParts(parts: RowPart[], size: number): Promise<Float32Array> {
    if (parts.length === 1) return this.readTensor(parts[0].tensor);
    const out = new Float32Array(size);
    const C = size / parts.reduce((s, p) => s + p.rows, 0);
    for (const part of parts) out.set(await this.readTensor(part.tensor), part.row0 * C);
    return out;
  }

  private async readTensor(t: Tensor): Promise<Float32Array> {
    return isPackedF16(t) ? unpackF16Pairs((await this.rt.read(t)) as Uint32Array, t.logicalSize) : this.rt.readF32(t);
  }

  async downloadGrads(): Promise<Map<string, Float32Array>> {
    const out = new Map<string, Float32Array>();
    if (this.lora) return this.lora.downloadGrads();
    for (const p of this.table) out.set(p.name, await this.readParts(this.gradParts(p.name), numel(p.shape)));
    return out;
  }

  /** What an optimizer should train: every parameter, or only the adapters when LoRA is attached. */
  trainableNames(): string[] {
    return this.lora ? this.lora.names : this.table.map((p) => p.name);
  }

  /** Packs every f32 2-D base weight to f16 in place on the GPU (frozen base; LoRA attached). Returns the bytes given back. */
  packBase(names: readonly string[] = this.table.filter((p) => p.shape.length === 2).map((p) => p.name)): number {
    if (!this.lora) throw new Error('packBase: the base weights are trainable; attach LoRA adapters first (f16 storage is for a frozen base)');
    let saved = 0;
    for (const name of names) {
      const parts = this.parts(name);
      this.store.set(name, parts.map((part) => {
        if (isPackedF16(part.tensor)) return part;
        const packed = packF16(this.rt, part.tensor, `${part.tensor.label}:f16`);
        this.rt.release(part.tensor);
        saved += 4 * (part.tensor.size - packed.size);
        return { ...part, tensor: packed };
      }));
    }
    return saved;
  }

  /** Unpacks every packed-f16 base weight back to f32 (exact: the f16-rounded values). */
  unpackBase(): void {
    for (const [name, parts] of this.store) {
      this.store.set(name, parts.map((part) => {
        const t = part.tensor;
        if (!isPackedF16(t)) return part;
        const f32 = unpackF16(this.rt, t, this.rt.empty(t.logicalShape, 'f32', t.label.replace(/:f16$/, '')));
        this.rt.release(t);
        return { ...part, tensor: f32 };
      }));
    }
  }

  destroy(): void {
    if (this.ownsBase) for (const parts of this.store.values()) for (const p of parts) this.rt.release(p.tensor);
    else this.lora?.destroy(); // a reference view owns only its adapter copy
    this.releaseGrads();
    this.store.clear();
  }
}

/**
 * Seeded initial values (GPT-2/Qwen-style): matrices and embeddings N(0, 0.02²), the residual
 * output projections (o_proj, down_proj) scaled by 1/sqrt(2L), norms 1.
 */
export function initialWeights(cfg: ModelConfig, seed: number): Map<string, Float32Array> {
  const rng = new Rng(seed);
  const out = new Map<string, Float32Array>();
  const residualStd = 0.02 / Math.sqrt(2 * cfg.numLayers);
  for (const p of parameterTable(cfg)) {
    const n = p.shape.reduce((a, b) => a * b, 1);
    const v = new Float32Array(n);
    if (p.kind === 'norm') v.fill(1);
    else {
      const std = /o_proj|down_proj/.test(p.name) ? residualStd : 0.02;
      for (let i = 0; i < n; i++) v[i] = rng.normal(0, std);
    }
    out.set(p.name, v);
  }
  return out;
}
