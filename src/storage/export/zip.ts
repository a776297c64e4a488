// Exports as one zip (the page's download) and back (import), with fflate. Entries are stored, not
// deflated: float weights barely compress and storing keeps a 1 GB zip fast.
import { unzip, Zip, ZipPassThrough } from 'fflate';
import type { ExportFile } from './files';

/** Zips the files (streaming, part by part) into Blob parts: `new Blob(await zipParts(files))`. */
export async function zipParts(files: ExportFile[]): Promise<Uint8Array<ArrayBuffer>[]> {
  const out: Uint8Array<ArrayBuffer>[] = [];
  await new Promise<void>((resolve, reject) => {
    const zip = new Zip((err, chunk, final) => {
      if (err) return reject(err);
      out.push(chunk as Uint8Array<ArrayBuffer>);
      if (final) resolve();
    });
    for (const f of files) {
      const entry = new ZipPassThrough(f.path);
      zip.add(entry);
      if (f.parts.length === 0) entry.push(new Uint8Array(0), true);
      f.parts.forEach((p, i) => entry.push(p, i === f.parts.length - 1));
    }
    zip.end();
  });
  return out;
}

/** The files of a zip by path. */
export function unzipFiles(bytes: Uint8Array): Promise<Map<string, Uint8Array>> {
  return new Promise((resolve, reject) => {
    unzip(bytes, (err, files) => (err ? reject(new Error(`not a readable zip file (${err.message})`)) : resolve(new Map(Object.entries(files)))));
  });
}
