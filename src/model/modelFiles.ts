// Where a Hugging Face model folder's files come from, read without ever holding a whole file:
// - picked files (File / Blob, e.g. a folder from <input webkitdirectory>, or Node's fs.openAsBlob):
//   random access, one slice at a time;
// - a URL base: fetch; a file is read front to back as a stream, and a connection that fails
//   halfway is resumed with an HTTP Range request from the byte reached (a server that ignores
//   Range, or that keeps failing, ends in an error saying so).
// DOM-free (Blob, fetch, streams): the page, a worker and Node use the same code.

/** Sequential reads of one file: exactly n bytes per read (an error if the file ends first). */
export interface SequentialReader {
  readonly position: number;
  read(n: number): Promise<Uint8Array>;
  skip(n: number): Promise<void>;
  close(): Promise<void>;
}

export interface ModelFileSource {
  /** For messages: "picked files" or the URL base. */
  readonly where: string;
  /** Whether the folder has this file (a URL source asks the server). */
  has(name: string): Promise<boolean>;
  /** A small file's text (config.json, the index, tokenizer files). */
  text(name: string): Promise<string>;
  /** Size in bytes, when known before reading. */
  size(name: string): Promise<number | undefined>;
  /** Reads the file front to back; `onBytes` hears every byte count as it arrives. */
  open(name: string, onBytes?: (n: number) => void): Promise<SequentialReader>;
}

const SLICE_BYTES = 8 * 1024 * 1024; // a Blob read: bounded memory per step

/** Files picked by the user (or Node Blobs), keyed by their base name. */
export class BlobFileSource implements ModelFileSource {
  private readonly files = new Map<string, Blob>();

  constructor(files: Iterable<File | [string, Blob]>, readonly where = 'the picked files') {
    for (const f of files) {
      const [name, blob] = Array.isArray(f) ? f : [(f.webkitRelativePath || f.name).split('/').pop()!, f];
      this.files.set(name, blob);
    }
  }

  get names(): string[] {
    return [...this.files.keys()];
  }

  private blob(name: string): Blob {
    const b = this.files.get(name);
    if (!b) throw new Error(`${name} is not among ${this.where} (${this.names.slice(0, 8).join(', ') || 'none'}): pick the model's whole folder`);
    return b;
  }

  async has(name: string): Promise<boolean> {
    return this.files.has(name);
  }

  text(name: string): Promise<string> {
    return this.blob(name).text();
  }

  async size(name: string): Promise<number> {
    return this.blob(name).size;
  }

  async open(name: string, onBytes?: (n: number) => void): Promise<SequentialReader> {
    const blob = this.blob(name);
    let position = 0;
    const readSlice = async (n: number): Promise<Uint8Array> => {
      if (position + n > blob.size) throw new Error(`${name} ends at byte ${blob.size}, needed ${position + n}: the file is truncated`);
      const out = new Uint8Array(n);
      for (let done = 0; done < n;) {
        const step = Math.min(SLICE_BYTES, n - done);
        out.set(new Uint8Array(await blob.slice(position + done, position + done + step).arrayBuffer()), done);
        done += step;
        onBytes?.(step);
      }
      position += n;
      return out;
    };
    return {
      get position() { return position; },
      read: readSlice,
      async skip(n: number) {
        if (position + n > blob.size) throw new Error(`${name} ends at byte ${blob.size}, needed ${position + n}: the file is truncated`);
        position += n;
        onBytes?.(n);
      },
      async close() {},
    };
  }
}

export interface UrlSourceOptions {
  fetch?: typeof fetch;
  signal?: AbortSignal;
  /** Resumes (Range requests) allowed per file after a failure halfway (default 3). */
  retries?: number;
}

/** A folder on a web server: `${base}${name}`. */
export class UrlFileSource implements ModelFileSource {
  private readonly fetchFn: typeof fetch;

  constructor(readonly base: string, private readonly opts: UrlSourceOptions = {}) {
    this.fetchFn = opts.fetch ?? ((input, init) => fetch(input, init));
  }

  get where(): string {
    return this.base;
  }

  private url(name: string): string {
    return `${this.base}${name}`;
  }

  private async get(name: string, init: RequestInit = {}): Promise<Response> {
    const url = this.url(name);
    try {
      return await this.fetchFn(url, { ...init, signal: this.opts.signal });
    } catch (e) {
      throw new Error(`fetching ${url} failed (${(e as Error).message}): check the address, your connection, and that the server allows cross-origin requests (CORS, and Cross-Origin-Resource-Policy for this isolated page)`);
    }
  }

  async has(name: string): Promise<boolean> {
    const r = await this.get(name, { method: 'HEAD' });
    if (r.status === 404) return false;
    if (r.ok) return true;
    throw new Error(`fetching ${this.url(name)}: HTTP ${r.status} ${r.statusText}: check the address`);
  }

  async text(name: string): Promise<string> {
    const r = await this.get(name);
    if (!r.ok) throw new Error(`fetching ${this.url(name)} failed: HTTP ${r.status} ${r.statusText}: check the address`);
    return r.text();
  }

  async size(name: string): Promise<number | undefined> {
    const r = await this.get(name, { method: 'HEAD' });
    const n = Number(r.headers.get('content-length'));
    const compressed = (r.headers.get('content-encoding') ?? 'identity') !== 'identity';
    return r.ok && Number.isFinite(n) && n > 0 && !compressed ? n : undefined;
  }

  async open(name: string, onBytes?: (n: number) => void): Promise<SequentialReader> {
    const url = this.url(name);
    const retries = this.opts.retries ?? 3;
    let failures = 0;
    let position = 0; // bytes delivered to the caller or queued
    let received = 0; // bytes received from the server (= position + queued)
    let reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
    const queue: Uint8Array[] = [];
    let queued = 0;
    let ended = false;

    const connect = async (): Promise<void> => {
      const resume = received > 0;
      const r = await this.get(name, resume ? { headers: { Range: `bytes=${received}-` } } : {});
      if (resume && r.status !== 206) {
        throw new Error(`the download of ${url} broke off at byte ${received}, and the server does not resume (it answered HTTP ${r.status} to a Range request): download the file again, or pick it from disk`);
      }
      if (!r.ok) throw new Error(`fetching ${url} failed: HTTP ${r.status} ${r.statusText}: check the address`);
      if (!r.body) throw new Error(`fetching ${url}: the response has no body`);
      reader = r.body.getReader();
    };
    const pull = async (): Promise<void> => {
      for (;;) {
        if (!reader) await connect();
        try {
          const { done, value } = await reader!.read();
          if (done) { ended = true; return; }
          queue.push(value);
          queued += value.byteLength;
          received += value.byteLength;
          onBytes?.(value.byteLength);
          return;
        } catch (e) {
          // the connection failed halfway: resume from the byte reached
          reader = null;
          if (++failures > retries) throw new Error(`the download of ${url} failed ${failures} times (last at byte ${received}: ${(e as Error).message}): check your connection and try again`);
        }
      }
    };
    const take = (n: number, keep: boolean): Uint8Array => {
      const out = new Uint8Array(keep ? n : 0);
      let done = 0;
      while (done < n) {
        const head = queue[0];
        const k = Math.min(n - done, head.byteLength);
        if (keep) out.set(head.subarray(0, k), done);
        if (k === head.byteLength) queue.shift();
        else queue[0] = head.subarray(k);
        done += k;
      }
      queued -= n;
      position += n;
      return out;
    };
    const fill = async (n: number) => {
      while (queued < n) {
        if (ended) throw new Error(`${url} ended after ${received} bytes, needed ${position + n}: the file on the server is truncated`);
        await pull();
      }
    };
    return {
      get position() { return position; },
      async read(n: number) { await fill(n); return take(n, true); },
      async skip(n: number) {
        for (let left = n; left > 0;) { // in slices: skipping a large tensor holds at most one slice
          const k = Math.min(left, SLICE_BYTES);
          await fill(k);
          take(k, false);
          left -= k;
        }
      },
      async close() { await (reader as ReadableStreamDefaultReader<Uint8Array> | null)?.cancel().catch(() => undefined); },
    };
  }
}
