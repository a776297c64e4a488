// `npm run vocab-transfer -- --from DIR --preset nano-q --out DIR`: a byte-level model folder (e.g. the
// bundled copy base, public/models/nano-copy-base) moved to the vocabulary of a preset of the same
// shape otherwise (src/model/vocabTransfer.ts: layers copied, each new token's embedding = the mean of
// its bytes' rows). Writes config.json + model.safetensors (HF layout: npm run learn -- --preset nano-q
// --init OUT) and vocab-transfer.json (source, its SHA-256, how each row was made); a copy-probe folder's
// copy-probe.json comes along with the new preset (npm run copy-probe -- --preset P --from OUT continues it).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { modelFromSafetensors, modelToSafetensors } from '../src/model/checkpointIO';
import { PRESETS, type PresetName } from '../src/model/config';
import { transferVocabulary } from '../src/model/vocabTransfer';
import { tokenizerForModel } from '../src/tokenizer/tokenizerForModel';

const USAGE = 'usage: npm run vocab-transfer -- --from DIR --preset nano-q|tiny-q --out DIR   (DIR: config.json + model.safetensors of a byte-level model of that preset\'s layer shape)';

function writeAtomic(path: string, data: string | Uint8Array): void {
  writeFileSync(`${path}.tmp`, data);
  renameSync(`${path}.tmp`, path);
}

async function main(): Promise<number> {
  const { values: v } = parseArgs({ args: process.argv.slice(2), strict: true, allowPositionals: false, options: { from: { type: 'string' }, preset: { type: 'string' }, out: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
  if (v.help) {
    console.log(USAGE);
    return 0;
  }
  if (!v.from || !v.out || !v.preset) throw new Error(`--from, --preset and --out are required\n${USAGE}`);
  if (!(v.preset in PRESETS)) throw new Error(`--preset ${v.preset}: not a preset (${Object.keys(PRESETS).join(', ')})`);
  const target = PRESETS[v.preset as PresetName];
  const bytes = readFileSync(join(v.from, 'model.safetensors'));
  const source = modelFromSafetensors(readFileSync(join(v.from, 'config.json'), 'utf8'), bytes);
  const { params, stats } = transferVocabulary({ ...source, tokenizer: await tokenizerForModel(source.cfg) }, target, await tokenizerForModel(target));
  mkdirSync(v.out, { recursive: true });
  const { configJson, safetensors } = modelToSafetensors(target, params);
  writeAtomic(join(v.out, 'model.safetensors'), safetensors);
  writeAtomic(join(v.out, 'config.json'), configJson);
  const record = {
    method: 'vocabulary transfer (src/model/vocabTransfer.ts): layers copied; each token = mean of its bytes\' source rows',
    source: v.from, sourceSha256: createHash('sha256').update(bytes).digest('hex'), preset: v.preset, rows: stats,
  };
  writeAtomic(join(v.out, 'vocab-transfer.json'), `${JSON.stringify(record, null, 1)}\n`);
  // A copy-probe folder's record goes along (its drill streams are what the layers trained on, so a continued
  // probe still holds out only unseen strings): npm run copy-probe -- --preset P --from OUT continues it.
  const probe = join(v.from, 'copy-probe.json');
  if (existsSync(probe)) writeAtomic(join(v.out, 'copy-probe.json'), `${JSON.stringify({ ...JSON.parse(readFileSync(probe, 'utf8')), preset: v.preset }, null, 1)}\n`);
  console.log(`[vocab-transfer] ${v.from} → ${v.out} (preset ${v.preset}): ${stats.specials} specials and ${stats.singleBytes} bytes copied, ${stats.multiByte} multi-byte tokens as the mean of their bytes, ${stats.padding} padding rows`);
  return 0;
}

main().then((code) => process.exit(code), (e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
