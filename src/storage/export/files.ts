// An export is a list of files (path in the folder + bytes as parts), DOM-free: Node writes them
// to a folder (../hfFolder.ts writeFolder), the page zips them (./zip.ts).

/** One file of an export: its path in the folder and its bytes as parts (no single huge array). */
export interface ExportFile {
  path: string;
  parts: Uint8Array[];
}

export function textFile(path: string, text: string): ExportFile {
  return { path, parts: [new TextEncoder().encode(text)] };
}

export function jsonFile(path: string, value: unknown): ExportFile {
  return textFile(path, `${JSON.stringify(value, null, 2)}\n`);
}

export function fileBytes(f: ExportFile): number {
  return f.parts.reduce((s, p) => s + p.byteLength, 0);
}

/** The parts joined (small files, tests). */
export function joinParts(f: ExportFile): Uint8Array {
  const out = new Uint8Array(fileBytes(f));
  let at = 0;
  for (const p of f.parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}
