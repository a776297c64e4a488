// Weights of a preset's shape from a folder holding config.json + model.safetensors (a copy-probe
// --save folder, a learn run's DIR/final): read, and refused when the model's shape is not the preset's.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type LoadedModel, modelFromSafetensors } from '../../src/model/checkpointIO';
import { PRESETS, type PresetName, shapeDifferences } from '../../src/model/config';

/** `flag` names the option in errors ("--init DIR: …"); `hint` says which preset to pass instead. */
export function readPresetFolder(dir: string, preset: PresetName, flag: string, hint: string): LoadedModel {
  for (const f of ['config.json', 'model.safetensors']) {
    if (!existsSync(join(dir, f))) throw new Error(`${flag} ${dir}: no ${f} there; give a folder with config.json and model.safetensors (npm run copy-probe -- --save DIR writes one)`);
  }
  const model = modelFromSafetensors(readFileSync(join(dir, 'config.json'), 'utf8'), readFileSync(join(dir, 'model.safetensors')));
  const differ = shapeDifferences(model.cfg, PRESETS[preset]);
  if (differ.length) throw new Error(`${flag} ${dir}: its model differs from ${flag === '--from' ? '--preset ' : 'preset '}${preset} in ${differ.join(', ')}; ${hint}`);
  return model;
}
