// The folder `npm run copy-probe -- --save DIR` writes at every probe and `--from DIR` continues from:
// config.json + model.safetensors (Hugging Face layout, so `npm run learn -- --init DIR` can start a
// pipeline from it) and copy-probe.json (which drill streams the weights trained on, so a continued
// probe never holds out a string the model already saw, and the last probe point). Each file is
// written to a temporary name and renamed, so a run stopped mid-write leaves the previous save whole.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ModelParams, modelToSafetensors } from '../../src/model/checkpointIO';
import type { ModelConfig, PresetName } from '../../src/model/config';
import { copyDrills } from '../../src/data/copyDrills';
import { type CopyProbePoint, type CopyProbeStart, drillText } from '../../src/pipeline/copyProbe';
import { readPresetFolder } from './presetFolder';

/** One drill stream a model trained on: copyDrills(drills, seed, emails). */
export interface DrillSource {
  seed: number;
  drills: number;
  /** Share of email drills (absent in records written before they existed = 0). */
  emails?: number;
}

export interface CopyProbeRecord {
  preset: PresetName;
  /** Every drill stream behind these weights, the earliest first. */
  drillSources: DrillSource[];
  /** Training steps behind these weights, over every run of the chain. */
  totalSteps: number;
  point: CopyProbePoint;
}

const RECORD = 'copy-probe.json';

function writeAtomic(path: string, data: string | Uint8Array): void {
  writeFileSync(`${path}.tmp`, data);
  renameSync(`${path}.tmp`, path);
}

export function saveProbeFolder(dir: string, cfg: ModelConfig, params: ModelParams, record: CopyProbeRecord): void {
  mkdirSync(dir, { recursive: true });
  const { configJson, safetensors } = modelToSafetensors(cfg, params);
  writeAtomic(join(dir, 'model.safetensors'), safetensors);
  writeAtomic(join(dir, 'config.json'), configJson);
  writeAtomic(join(dir, RECORD), `${JSON.stringify(record, null, 1)}\n`);
}

/** Loads a saved probe for a run of `preset`; refuses another model shape or a folder without its record. */
export function loadProbeFolder(dir: string, preset: PresetName): { start: CopyProbeStart; record: CopyProbeRecord } {
  const recordPath = join(dir, RECORD);
  if (!existsSync(recordPath)) throw new Error(`--from ${dir}: no ${RECORD} there (a folder written by copy-probe --save holds config.json, model.safetensors and ${RECORD})`);
  const record = JSON.parse(readFileSync(recordPath, 'utf8')) as CopyProbeRecord;
  const { params } = readPresetFolder(dir, preset, '--from', `pass the preset it was trained with (${record.preset})`);
  const trainedStrings = record.drillSources.flatMap((s) => copyDrills(s.drills, s.seed, s.emails).map(drillText));
  return { start: { weights: params, trainedStrings }, record };
}
