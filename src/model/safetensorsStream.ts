// Loading safetensors without holding the whole file: from a Blob/File (browser file picker: random
// access, reads the header then one tensor slice at a time) and from a ReadableStream/Response
// (URL: front to back, each tensor decoded as soon as its bytes arrive, the rest dropped).

import {
  type LoadedTensor, type SafetensorsHeader, SafetensorsIndex,
  decodeTensor, parseSafetensorsHeader, readHeaderLength, tensorsInFileOrder,
} from './safetensors';

/** Called with bytes read so far and the expected total (file size, or what the header implies). */
export type ProgressCallback = (loadedBytes: number, totalBytes: number) => void;

async function readSlice(blob: Blob, begin: number, end: number): Promise<Uint8Array> {
  return new Uint8Array(await blob.slice(begin, end).arrayBuffer());
}

/** A safetensors Blob/File: the header is read on open, each tensor only when asked for. */
export class SafetensorsBlobFile extends SafetensorsIndex {
  private constructor(private readonly blob: Blob, header: SafetensorsHeader) {
    super(header);
  }

  static async open(blob: Blob): Promise<SafetensorsBlobFile> {
    const n = readHeaderLength(await readSlice(blob, 0, 8), blob.size);
    const head = await readSlice(blob, 0, 8 + n);
    return new SafetensorsBlobFile(blob, parseSafetensorsHeader(head, blob.size));
  }

  tensor(name: string): Promise<LoadedTensor> {
    const info = this.info(name);
    const start = this.header.dataStart;
    return readSlice(this.blob, start + info.begin, start + info.end).then((raw) => decodeTensor(info, raw));
  }

  /** Every tensor (or those `wanted` accepts), read in file order, reporting progress after each. */
  async readAll(onProgress?: ProgressCallback, wanted: (name: string) => boolean = () => true): Promise<Map<string, LoadedTensor>> {
    const total = this.blob.size;
    let loaded = this.header.dataStart;
    onProgress?.(loaded, total);
    const out = new Map<string, LoadedTensor>();
    for (const info of tensorsInFileOrder(this.header)) {
      if (wanted(info.name)) out.set(info.name, await this.tensor(info.name));
      loaded = this.header.dataStart + info.end;
      onProgress?.(loaded, total);
    }
    return out;
  }
}

/** FIFO of received chunks; take() copies out exactly the bytes asked for. */
class ChunkQueue {
  private chunks: Uint8Array[] = [];
  private head = 0; // bytes of chunks[0] already consumed
  size = 0;

  push(chunk: Uint8Array): void {
    if (chunk.byteLength === 0) return;
    this.chunks.push(chunk);
    this.size += chunk.byteLength;
  }

  /** Removes n bytes (n ≤ size); copies them into a new array unless `discard`. */
  take(n: number, discard = false): Uint8Array {
    const out = new Uint8Array(discard ? 0 : n);
    let done = 0;
    while (done < n) {
      const chunk = this.chunks[0];
      const count = Math.min(n - done, chunk.byteLength - this.head);
      if (!discard) out.set(chunk.subarray(this.head, this.head + count), done);
      done += count;
      this.head += count;
      if (this.head === chunk.byteLength) {
        this.chunks.shift();
        this.head = 0;
      }
    }
    this.size -= n;
    return out;
  }
}

export interface StreamOptions {
  /** Total bytes if known (Content-Length); otherwise the header's size is used once read. */
  totalBytes?: number;
  onProgress?: ProgressCallback;
  /** Called once the header is parsed, before any tensor is decoded. */
  onHeader?: (header: SafetensorsHeader) => void;
}

/** Yields [name, tensor] in file order while the stream is read; cancels the stream when done early. */
export async function* streamSafetensors(
  stream: ReadableStream<Uint8Array>, options: StreamOptions = {},
): AsyncGenerator<[string, LoadedTensor]> {
  const reader = stream.getReader();
  const queue = new ChunkQueue();
  let loaded = 0;
  let total = options.totalBytes;
  let finished = false;
  const fill = async (needed: number, what: string): Promise<void> => {
    while (queue.size < needed) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`safetensors stream ended after ${loaded} bytes while reading ${what}: the download was cut short or the file is truncated`);
      queue.push(value);
      loaded += value.byteLength;
      if (total !== undefined) options.onProgress?.(loaded, total);
    }
  };
  try {
    await fill(8, 'the header length');
    const first8 = queue.take(8);
    const n = readHeaderLength(first8, total ?? null);
    await fill(n, 'the header');
    const head = new Uint8Array(8 + n);
    head.set(first8);
    head.set(queue.take(n), 8);
    const header = parseSafetensorsHeader(head, total ?? null);
    total ??= header.dataStart + header.dataLength;
    options.onHeader?.(header);
    options.onProgress?.(loaded, total);
    let position = 0; // within the data section
    for (const info of tensorsInFileOrder(header)) {
      await fill(info.end - position, `tensor '${info.name}'`);
      queue.take(info.begin - position, true); // skip any gap before it
      const raw = queue.take(info.end - info.begin);
      position = info.end;
      yield [info.name, decodeTensor(info, raw)];
    }
    finished = true;
  } finally {
    if (finished) reader.releaseLock();
    else await reader.cancel().catch(() => undefined); // early exit or error: stop the download
  }
}

/** Every tensor of a stream, collected into a map (header order is not kept: file order is). */
export async function readSafetensorsStream(stream: ReadableStream<Uint8Array>, options: StreamOptions = {}): Promise<Map<string, LoadedTensor>> {
  const out = new Map<string, LoadedTensor>();
  for await (const [name, tensor] of streamSafetensors(stream, options)) out.set(name, tensor);
  return out;
}

/** Loads a fetched safetensors file; uses Content-Length for progress when it is trustworthy. */
export async function loadSafetensorsResponse(
  response: Response, options: Omit<StreamOptions, 'totalBytes'> = {},
): Promise<Map<string, LoadedTensor>> {
  const url = response.url || 'the safetensors URL';
  if (!response.ok) throw new Error(`fetching ${url} failed: HTTP ${response.status} ${response.statusText}: check the address and that the server allows it`);
  if (!response.body) throw new Error(`fetching ${url}: the response has no body`);
  const length = Number(response.headers.get('content-length'));
  // A compressed body's Content-Length counts compressed bytes, not the ones the stream yields.
  const compressed = (response.headers.get('content-encoding') ?? 'identity') !== 'identity';
  const totalBytes = Number.isFinite(length) && length > 0 && !compressed ? length : undefined;
  return readSafetensorsStream(response.body, { ...options, totalBytes });
}
