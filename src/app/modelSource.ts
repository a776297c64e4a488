// Loading a Hugging Face-layout model (config.json + model.safetensors) for the page: from picked
// files or a folder, or from a URL base, with byte progress; then what it is and whether it can train
// here. DOM-free (Blob, File, fetch, streams): runs in the page and in Node tests.
import { type LoadedModel, modelFromSafetensorsBlob } from '../model/checkpointIO';
import { BYTE_VOCAB_SIZE, type ModelConfig } from '../model/config';
import { readHfConfig } from '../model/hfConfig';
import { checkFits, type DeviceLimits, estimateMemory } from '../model/memoryPlan';
import { countParameters, formatBytes } from '../model/parameters';

/** What is happening and how far: bytes of the current phase. */
export type LoadProgress = (p: { phase: 'download' | 'read'; loadedBytes: number; totalBytes: number }) => void;

export interface LoadedModelInfo extends LoadedModel {
  /** Where it came from, for labels: "model.safetensors (picked files)" or the URL base. */
  source: string;
  parameters: number;
  /** Size of the safetensors file. */
  fileBytes: number;
}

/** Picked files (a folder's, or several) → the config and the weights; throws saying what is missing. */
export function pickModelFiles(files: readonly File[]): { config: File; weights: File } {
  const base = (f: File) => (f.webkitRelativePath || f.name).split('/').pop()!;
  const config = files.find((f) => base(f) === 'config.json');
  const tensors = files.filter((f) => base(f).endsWith('.safetensors'));
  const names = files.map(base);
  const found = names.length ? ` (got: ${names.slice(0, 6).join(', ')}${names.length > 6 ? ', …' : ''})` : '';
  if (tensors.length === 0) throw new Error(`no .safetensors file among the picked files${found}: pick config.json and model.safetensors, or the model's folder`);
  if (!config) throw new Error(`no config.json among the picked files${found}: the model's config.json must be picked with its weights`);
  const weights = tensors.find((f) => base(f) === 'model.safetensors') ?? (tensors.length === 1 ? tensors[0] : undefined);
  if (!weights) {
    throw new Error(`${tensors.length} .safetensors files and none named model.safetensors: sharded checkpoints (model-00001-of-…) are not supported yet; save the model as one file`);
  }
  return { config, weights };
}

export async function loadModelFromFiles(files: readonly File[], onProgress?: LoadProgress): Promise<LoadedModelInfo> {
  const { config, weights } = pickModelFiles(files);
  const loaded = await modelFromSafetensorsBlob(await config.text(), weights, (loadedBytes, totalBytes) => onProgress?.({ phase: 'read', loadedBytes, totalBytes }));
  return withInfo(loaded, weights.webkitRelativePath || weights.name, weights.size);
}

/** "https://host/models/x" or ".../x/config.json" or ".../x/model.safetensors" → "https://host/models/x/". */
export function modelUrlBase(input: string, pageUrl: string): string {
  const text = input.trim();
  if (text === '') throw new Error('give the URL of the folder that holds config.json and model.safetensors');
  let url: URL;
  try {
    url = new URL(text, pageUrl);
  } catch {
    throw new Error(`'${text}' is not a URL: give e.g. https://example.org/models/my-model/`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`'${text}': only http(s) URLs can be fetched`);
  url.search = '';
  url.hash = '';
  url.pathname = url.pathname.replace(/\/(config\.json|model\.safetensors)$/, '/');
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url.href;
}

async function fetchOk(fetchFn: typeof fetch, url: string, signal?: AbortSignal): Promise<Response> {
  let response: Response;
  try {
    response = await fetchFn(url, { signal });
  } catch (e) {
    throw new Error(`fetching ${url} failed (${(e as Error).message}): check the address, your connection, and that the server allows cross-origin requests (CORS, and Cross-Origin-Resource-Policy for this isolated page)`);
  }
  if (!response.ok) throw new Error(`fetching ${url} failed: HTTP ${response.status} ${response.statusText}: check the address`);
  return response;
}

/** A response body as a Blob, reporting bytes as they arrive (total from Content-Length when trustworthy). */
async function downloadBlob(response: Response, onProgress?: LoadProgress): Promise<Blob> {
  const length = Number(response.headers.get('content-length'));
  const compressed = (response.headers.get('content-encoding') ?? 'identity') !== 'identity';
  const total = Number.isFinite(length) && length > 0 && !compressed ? length : 0;
  if (!response.body) return response.blob();
  const reader = response.body.getReader();
  const parts: Uint8Array<ArrayBuffer>[] = [];
  let loaded = 0;
  onProgress?.({ phase: 'download', loadedBytes: 0, totalBytes: total });
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value as Uint8Array<ArrayBuffer>);
    loaded += value.byteLength;
    onProgress?.({ phase: 'download', loadedBytes: loaded, totalBytes: Math.max(total, loaded) });
  }
  if (total && loaded !== total) throw new Error(`the download of model.safetensors stopped at ${loaded} of ${total} bytes: try again`);
  return new Blob(parts);
}

/**
 * Fetches base/config.json (checked first: a bad config costs no download), then streams
 * base/model.safetensors into a Blob with progress and reads the tensors from it (the same checks
 * as picked files: every tensor named with its expected and found shape).
 */
export async function loadModelFromUrl(base: string, onProgress?: LoadProgress, opts: { fetch?: typeof fetch; signal?: AbortSignal } = {}): Promise<LoadedModelInfo> {
  const fetchFn = opts.fetch ?? fetch;
  const configText = await (await fetchOk(fetchFn, `${base}config.json`, opts.signal)).text();
  readHfConfig(configText);
  const blob = await downloadBlob(await fetchOk(fetchFn, `${base}model.safetensors`, opts.signal), onProgress);
  const loaded = await modelFromSafetensorsBlob(configText, blob, (loadedBytes, totalBytes) => onProgress?.({ phase: 'read', loadedBytes, totalBytes }));
  return withInfo(loaded, base, blob.size);
}

function withInfo(loaded: LoadedModel, source: string, fileBytes: number): LoadedModelInfo {
  return { ...loaded, source, fileBytes, parameters: countParameters(loaded.cfg) };
}

/** "0.43 M" / "596 M" / "15.4 k". */
export function formatCount(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(2)} B`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(2)} M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)} k`;
  return String(n);
}

export interface TrainCheck {
  ok: boolean;
  /** One line per finding: memory needed, and each problem with what to do. */
  lines: string[];
}

/**
 * Can the page's demo train this config at batch × seqLen (its recipe's shape) on an adapter with these limits?
 * Memory (estimateMemory/checkFits), the byte tokenizer the demo data uses, and the context length.
 * `limits` null: no adapter yet, so only the model-side checks.
 */
export function checkTrainable(cfg: ModelConfig, run: { batchSize: number; seqLen: number; referenceCopy?: boolean }, limits: DeviceLimits | null, label = 'the loaded model'): TrainCheck {
  const lines: string[] = [];
  let ok = true;
  const est = estimateMemory(cfg, { batch: run.batchSize, seqLen: run.seqLen, optimizer: 'adamw', weightDtype: 'f32', referenceCopy: run.referenceCopy }, limits ?? undefined);
  lines.push(`training at batch ${run.batchSize} × ${run.seqLen} tokens needs ${formatBytes(est.totalBytes)} (weights ${formatBytes(est.weightsBytes)}, `
    + `gradients ${formatBytes(est.gradsBytes)}, optimizer ${formatBytes(est.optimizerBytes)}, activations ${formatBytes(est.activationsBytes)}); `
    + `largest buffer ${formatBytes(est.largestBufferBytes)}`);
  if (limits) {
    const problem = checkFits(est, limits, { label });
    if (problem) {
      ok = false;
      lines.push(`does not fit this adapter: ${problem}`);
    } else lines.push(`fits this adapter (largest buffer ≤ ${formatBytes(limits.maxStorageBufferBindingSize)} storage binding)`);
  } else lines.push('fit unknown: no GPU adapter yet');
  if (cfg.tokenizer !== 'byte') {
    ok = false;
    lines.push('uses the Qwen3 tokenizer: the in-tab demo trains byte-tokenizer models (nano/tiny/small layouts); Qwen3 tokenizer runs are not wired into the page yet');
  } else if (cfg.vocabSize < BYTE_VOCAB_SIZE) {
    ok = false;
    lines.push(`vocab_size ${cfg.vocabSize} is smaller than the byte tokenizer's ${BYTE_VOCAB_SIZE} tokens: save the model with vocab_size ≥ ${BYTE_VOCAB_SIZE}`);
  }
  if (run.seqLen > cfg.maxPositionEmbeddings) {
    ok = false;
    lines.push(`the demo's episodes are up to ${run.seqLen} tokens, more than the model's max_position_embeddings ${cfg.maxPositionEmbeddings}: load a model with a context of at least ${run.seqLen}`);
  }
  return { ok, lines };
}
