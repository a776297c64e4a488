// Arguments, inputs and the output file of `npm run debug-state`, checked before any computation:
// the output may not be one of the inputs (it would replace the model with its gradients), its
// folder must exist, the model's weights must be finite and the batch must score at least one
// position. The output is written under a temporary name and renamed, so an interrupted run
// never leaves a half-written file behind.
import { closeSync, existsSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { LoadedModel } from '../../src/model/checkpointIO';
import type { HfTokenBatch } from '../../src/model/hfBatch';
import type { MaskedBatch } from '../../src/model/trainStep';
import { flagCheckers } from '../../src/util/flagValues';

export const DEBUG_STATE_USAGE = 'usage: npm run debug-state -- --model DIR --batch FILE --out FILE.safetensors [--adapter swiftshader|opengles]';

export interface DebugStateArgs {
  /** HF-layout folder: config.json + model.safetensors. */
  model: string;
  /** JSON batch {"input_ids": [[…]], "labels": [[…]]}. */
  batch: string;
  /** Output safetensors file (loss, logits, gradients). */
  out: string;
  adapter: 'swiftshader' | 'opengles';
}

/** A mistake in the command line or the inputs: the CLI prints it and exits non-zero. */
export class DebugStateError extends Error {
  override name = 'DebugStateError';
  constructor(message: string, readonly exitCode: 1 | 2 = 1) {
    super(message);
  }
}

/** A bad flag value: the message, the usage, exit code 2. */
const flagChecks = flagCheckers(class extends DebugStateError {
  constructor(message: string) {
    super(`${message}\n${DEBUG_STATE_USAGE}`, 2);
  }
});

/** Parses the flags; every flag once, none unknown, the three paths required. */
export function parseDebugStateArgs(argv: string[]): DebugStateArgs {
  let values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { model: { type: 'string', multiple: true }, batch: { type: 'string', multiple: true }, out: { type: 'string', multiple: true }, adapter: { type: 'string', multiple: true } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    throw new DebugStateError(`${(e as Error).message}\n${DEBUG_STATE_USAGE}`, 2);
  }
  const one = (name: string, required: boolean): string | undefined => {
    const v = values[name] as string[] | undefined;
    if (v === undefined || v.length === 0) {
      if (required) throw new DebugStateError(`missing --${name}\n${DEBUG_STATE_USAGE}`, 2);
      return undefined;
    }
    if (v.length > 1) throw new DebugStateError(`--${name} is given ${v.length} times (${v.map((x) => JSON.stringify(x)).join(', ')}); give it once\n${DEBUG_STATE_USAGE}`, 2);
    if (v[0] === '' || v[0].startsWith('--')) throw new DebugStateError(`--${name} needs a value\n${DEBUG_STATE_USAGE}`, 2);
    return v[0];
  };
  const adapter = flagChecks.oneOf('adapter', one('adapter', false) ?? 'swiftshader', ['swiftshader', 'opengles'] as const);
  return { model: one('model', true)!, batch: one('batch', true)!, out: one('out', true)!, adapter };
}

/** The files debug-state reads. */
export function inputPaths(args: DebugStateArgs): { config: string; weights: string; batch: string } {
  return { config: join(args.model, 'config.json'), weights: join(args.model, 'model.safetensors'), batch: args.batch };
}

/** Same file: same device and inode (catches links and different spellings of one path). */
function sameFile(a: string, b: string): boolean {
  if (resolve(a) === resolve(b)) return true;
  try {
    const sa = statSync(a);
    const sb = statSync(b);
    return sa.dev === sb.dev && sa.ino === sb.ino;
  } catch {
    return false;
  }
}

/** Throws unless --out is a new or replaceable file in an existing folder and none of the inputs (`moreInputs`: a sharded model's files). */
export function checkOutPath(args: DebugStateArgs, moreInputs: readonly string[] = []): void {
  const out = resolve(args.out);
  const folder = dirname(out);
  if (!existsSync(folder) || !statSync(folder).isDirectory()) {
    throw new DebugStateError(`the folder of --out ${out} does not exist; create it or choose another path (checked before computing anything)`);
  }
  if (existsSync(out) && statSync(out).isDirectory()) throw new DebugStateError(`--out ${out} is a folder; give a file name such as ${join(out, 'state.safetensors')}`);
  const inputs = inputPaths(args);
  for (const [what, path] of [...Object.entries({ 'the model weights': inputs.weights, 'the model config': inputs.config, 'the batch file': inputs.batch }), ...moreInputs.map((p) => ['the model weights', p] as const)]) {
    if (sameFile(out, path)) throw new DebugStateError(`--out ${out} is ${what} (${resolve(path)}); debug-state never writes over its inputs: choose another file, e.g. ${join(folder, 'state.safetensors')}`);
  }
}

/** Reads one input file with a message that names it. */
export function readInput(path: string, what: string): Buffer {
  try {
    return readFileSync(path);
  } catch (e) {
    const code = (e as { code?: string }).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : (e as Error).message;
    throw new DebugStateError(`cannot read ${what} at ${resolve(path)}: ${why}`);
  }
}

/** Parses the batch file's JSON (after reading it: a missing file is not "invalid JSON"). */
export function readBatch(path: string): HfTokenBatch {
  const text = readInput(path, 'the batch file').toString('utf8').replace(/^\uFEFF/, '');
  try {
    return JSON.parse(text) as HfTokenBatch;
  } catch (e) {
    throw new DebugStateError(`the batch file ${resolve(path)} is not valid JSON (${(e as Error).message}); expected {"input_ids": [[…]], "labels": [[…]]}`);
  }
}

/** Throws naming the tensors that hold NaN or ±Inf (the loss and every gradient would be NaN). */
export function checkFiniteWeights(model: LoadedModel): void {
  const counts = new Map<string, { bad: number; total: number }>();
  for (const [name, data] of model.params) {
    let count = 0;
    for (let i = 0; i < data.length; i++) if (!Number.isFinite(data[i])) count++;
    counts.set(name, { bad: count, total: data.length });
  }
  checkFiniteCounts(counts);
}

/** The same from per-tensor counts (weights streamed to the GPU are counted on the way). */
export function checkFiniteCounts(counts: ReadonlyMap<string, { bad: number; total: number }>): void {
  const bad: string[] = [];
  for (const [name, c] of counts) if (c.bad > 0) bad.push(`'${name}' (${c.bad} of ${c.total})`);
  if (bad.length > 0) {
    throw new DebugStateError(`model.safetensors holds NaN or infinite weights in ${bad.length} tensor${bad.length > 1 ? 's' : ''}: ${bad.slice(0, 5).join(', ')}${bad.length > 5 ? ', …' : ''}; the loss and gradients would be NaN: check the checkpoint`);
  }
}

/** Throws when no position is scored (every label -100, or one-token rows): the loss would be 0/0. */
export function checkScoredPositions(batch: MaskedBatch): void {
  let scored = 0;
  for (const m of batch.mask) scored += m;
  if (scored === 0) {
    throw new DebugStateError('the batch scores no position: every label after the first token is -100 (or the rows are one token long), so there is no loss to compare; un-ignore at least one label');
  }
}

/** Throws when the computation produced a non-finite loss (overflow in the model). */
export function checkFiniteLoss(loss: number): void {
  if (!Number.isFinite(loss)) throw new DebugStateError(`the loss came out ${loss} (finite weights, so an overflow in the forward pass); nothing was written`);
}

/** Writes `bytes` (or parts, one after the other) to `out` through a temporary file in the same folder and a rename. */
export function writeAtomically(out: string, bytes: Uint8Array | readonly Uint8Array[]): void {
  const target = resolve(out);
  const temp = join(dirname(target), `.${basename(target)}.${process.pid}.partial`);
  try {
    if (bytes instanceof Uint8Array) writeFileSync(temp, bytes);
    else {
      const fd = openSync(temp, 'w');
      try {
        for (const part of bytes) writeSync(fd, part);
      } finally {
        closeSync(fd);
      }
    }
    renameSync(temp, target);
  } catch (e) {
    rmSync(temp, { force: true });
    throw new DebugStateError(`could not write ${target} (${(e as Error).message}); nothing was changed there`);
  }
}
