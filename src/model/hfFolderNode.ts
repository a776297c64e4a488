// Node-only helpers for model folders on disk (tests, scripts): write the files hfFolderFiles
// produces, and read a folder as a ModelFileSource (fs.openAsBlob: Blobs backed by the files, read
// a slice at a time). Not imported by the page.
import { openAsBlob } from 'node:fs';
import { closeSync, mkdirSync, openSync, readdirSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { FolderFile } from './hfFolderWriter';
import { BlobFileSource } from './modelFiles';

/** Writes every file into dir (created if needed), chunk by chunk; returns the bytes written. */
export function writeFolder(dir: string, files: readonly FolderFile[]): number {
  mkdirSync(dir, { recursive: true });
  let total = 0;
  for (const f of files) {
    const fd = openSync(join(dir, f.name), 'w');
    try {
      for (const chunk of f.chunks()) total += writeSync(fd, chunk);
    } finally {
      closeSync(fd);
    }
  }
  return total;
}

/** The regular files of dir as a source (nothing is read until asked). */
export async function folderSource(dir: string): Promise<BlobFileSource> {
  const names = readdirSync(dir, { withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name);
  const entries: [string, Blob][] = [];
  for (const n of names) entries.push([n, await openAsBlob(join(dir, n))]);
  return new BlobFileSource(entries, dir);
}
