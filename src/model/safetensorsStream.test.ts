import { describe, expect, it } from 'vitest';
import { Rng, randomNormal } from '../util/rng';
import { readSafetensors, writeSafetensors } from './safetensors';
import { SafetensorsBlobFile, loadSafetensorsResponse, readSafetensorsStream, streamSafetensors } from './safetensorsStream';

const rng = new Rng(11);
const FILE = writeSafetensors(new Map([
  ['first', { shape: [4, 8], data: randomNormal(rng, 32) }],
  ['ids', { shape: [5], data: new Int32Array([3, 1, 4, 1, 5]) }],
  ['last', { shape: [3, 3], data: randomNormal(rng, 9), dtype: 'BF16' as const }],
]), { format: 'pt' });
const EXPECTED = readSafetensors(FILE);

/** A Blob that records which byte ranges were read. */
class RecordingBlob extends Blob {
  reads: [number, number][] = [];
  override slice(start = 0, end = this.size): Blob {
    this.reads.push([start, end]);
    return super.slice(start, end);
  }
}

/** A stream that delivers `bytes` in chunks of pseudo-random sizes (1 to maxChunk bytes). */
function chunkedStream(bytes: Uint8Array, maxChunk: number, seed: number, onCancel?: () => void): ReadableStream<Uint8Array> {
  const r = new Rng(seed);
  let at = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      const n = r.int(1, maxChunk);
      controller.enqueue(bytes.slice(at, at + n));
      at += n;
    },
    cancel: () => onCancel?.(),
  });
}

describe('SafetensorsBlobFile', () => {
  it('reads the header first, then only the slice of the tensor asked for', async () => {
    const blob = new RecordingBlob([FILE]);
    const file = await SafetensorsBlobFile.open(blob);
    expect(file.names).toEqual(['first', 'ids', 'last']);
    expect(file.metadata).toEqual({ format: 'pt' });
    const start = file.header.dataStart;
    expect(blob.reads).toEqual([[0, 8], [0, start]]);
    const ids = await file.tensor('ids');
    expect(ids).toEqual(EXPECTED.get('ids'));
    expect(blob.reads[2]).toEqual([start + 128, start + 148]);
  });

  it('reads everything with monotone progress ending at the file size', async () => {
    const file = await SafetensorsBlobFile.open(new Blob([FILE]));
    const progress: [number, number][] = [];
    const all = await file.readAll((loaded, total) => progress.push([loaded, total]));
    expect(all).toEqual(EXPECTED);
    expect(progress.at(-1)).toEqual([FILE.length, FILE.length]);
    expect(progress.every(([l], i) => i === 0 || l >= progress[i - 1][0])).toBe(true);
  });

  it('rejects a truncated Blob before reading tensors', async () => {
    await expect(SafetensorsBlobFile.open(new Blob([FILE.subarray(0, 40)]))).rejects.toThrow(/truncated or not a safetensors file/);
  });
});

describe('streaming', () => {
  it.each([1, 7, 64, 100_000])('decodes tensors as bytes arrive (chunks up to %i bytes)', async (maxChunk) => {
    const progress: number[] = [];
    const got = await readSafetensorsStream(chunkedStream(FILE, maxChunk, maxChunk), {
      onProgress: (loaded, total) => { expect(total).toBe(FILE.length); progress.push(loaded); },
    });
    expect(got).toEqual(EXPECTED);
    expect(progress.at(-1)).toBe(FILE.length);
  });

  it('skips gaps between tensors', async () => {
    const json = new TextEncoder().encode(JSON.stringify({ b: { dtype: 'F32', shape: [1], data_offsets: [8, 12] }, a: { dtype: 'I32', shape: [1], data_offsets: [0, 4] } }));
    const bytes = new Uint8Array(8 + json.length + 12);
    new DataView(bytes.buffer).setUint32(0, json.length, true);
    bytes.set(json, 8);
    new DataView(bytes.buffer).setInt32(8 + json.length, 42, true);
    new DataView(bytes.buffer).setFloat32(8 + json.length + 8, 2.5, true);
    const got = await readSafetensorsStream(chunkedStream(bytes, 3, 1));
    expect([...got.keys()]).toEqual(['a', 'b']); // file order
    expect(got.get('a')!.data).toEqual(new Int32Array([42]));
    expect(got.get('b')!.data).toEqual(new Float32Array([2.5]));
  });

  it('says the download was cut short', async () => {
    await expect(readSafetensorsStream(chunkedStream(FILE.subarray(0, FILE.length - 5), 50, 2)))
      .rejects.toThrow(/stream ended after \d+ bytes while reading tensor 'last'/);
  });

  it('cancels the stream when the consumer stops early', async () => {
    let cancelled = false;
    for await (const [name] of streamSafetensors(chunkedStream(FILE, 16, 3, () => { cancelled = true; }))) {
      expect(name).toBe('first');
      break;
    }
    expect(cancelled).toBe(true);
  });

  it('loads a Response, using Content-Length for progress', async () => {
    const totals = new Set<number>();
    const response = new Response(chunkedStream(FILE, 40, 4), { headers: { 'content-length': String(FILE.length) } });
    const got = await loadSafetensorsResponse(response, { onProgress: (_l, total) => totals.add(total) });
    expect(got).toEqual(EXPECTED);
    expect([...totals]).toEqual([FILE.length]);
  });

  it('reports an HTTP error with the status', async () => {
    await expect(loadSafetensorsResponse(new Response('nope', { status: 404, statusText: 'Not Found' })))
      .rejects.toThrow(/HTTP 404 Not Found/);
  });
});
