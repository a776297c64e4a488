// The bundled copy base (src/app/bundledModels.ts): the copy chain's last phase copied into
// public/models/nano-copy-base/ with a provenance.json that says how it was made, so a reader can
// rebuild it (`npm run copy-chain -- --out DIR --bundle`: same seeds, same adapter → same weights)
// and a test can tell when the chain in the code no longer matches the bundled weights.
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { COPY_BASE } from '../../src/model/bundledModels';
import { COPY_CHAIN_PHASES, COPY_CHAIN_RESULT, type CopyChainPhase } from './copyChain';
import type { CopyProbeRecord } from './copyProbeFolder';

export const COPY_BASE_DIR = join('public', 'models', COPY_BASE.id);

/** The files of the bundled folder: the HF pair the page and `--init` load, and the chain's record. */
export const COPY_BASE_FILES = ['config.json', 'model.safetensors', 'copy-probe.json'] as const;

export interface CopyBaseProvenance {
  /** How to make these weights again. */
  command: string;
  /** The chain's phases as the code had them when the weights were bundled. */
  phases: CopyChainPhase[];
  /** SHA-256 (hex) and size of model.safetensors. */
  sha256: string;
  bytes: number;
  /** The adapter the chain ran on (same seeds on another adapter may round differently). */
  adapter: string;
  /** Exact copy of the last phase's own held-out drills, from its copy-probe.json. */
  heldOutExactCopy: { k: number; n: number };
}

export function sha256File(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** Copies CHAIN/E into `outDir` and writes provenance.json; refuses a chain that has not finished. */
export function bundleCopyBase(chainDir: string, adapter: string, outDir = COPY_BASE_DIR): CopyBaseProvenance {
  const from = join(chainDir, COPY_CHAIN_RESULT);
  for (const f of COPY_BASE_FILES) if (!existsSync(join(from, f))) throw new Error(`--bundle: ${join(from, f)} is missing; finish the chain first`);
  const record = JSON.parse(readFileSync(join(from, 'copy-probe.json'), 'utf8')) as CopyProbeRecord;
  const last = COPY_CHAIN_PHASES[COPY_CHAIN_PHASES.length - 1];
  if (record.totalSteps !== last.totalSteps) throw new Error(`--bundle: ${from} has ${record.totalSteps} training steps, the chain's last phase ends at ${last.totalSteps}; finish the chain first`);
  mkdirSync(outDir, { recursive: true });
  for (const f of COPY_BASE_FILES) copyFileSync(join(from, f), join(outDir, f));
  const weights = join(outDir, 'model.safetensors');
  const provenance: CopyBaseProvenance = {
    command: 'npm run copy-chain -- --out DIR --bundle',
    phases: COPY_CHAIN_PHASES.map((p) => ({ ...p, flags: [...p.flags] })),
    sha256: sha256File(weights),
    bytes: readFileSync(weights).byteLength,
    adapter,
    heldOutExactCopy: { k: record.point.exact.successes, n: record.point.exact.n },
  };
  writeFileSync(join(outDir, 'provenance.json'), `${JSON.stringify(provenance, null, 1)}\n`);
  return provenance;
}
