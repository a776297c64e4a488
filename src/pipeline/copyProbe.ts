// The copy probe: can a model trained from scratch learn to copy a string it has never seen? Every
// held-out argument value of the routing and service test splits has to be copied from the request,
// and the nano presets never learned it (README "What learns today"). This trains a fresh model (or,
// continuing a saved probe, its weights) on copy drills (data/copyDrills.ts: the user writes random
// letters, the assistant echoes them in the function-calling call format), optionally mixed with
// induction sequences, and every `probeEvery` steps decodes held-out drills greedily: exact copy =
// the assistant turn right up to its <|im_end|> (the call with the string copied byte for byte).
// Held-out drills come from another seed's stream, and any whose string also occurs in training is
// dropped, so a hit is a copy, never a recall.
import { copyDrills } from '../data/copyDrills';
import { inductionDocs, tokenPool } from '../data/inductionDocs';
import { type Rate, wilson } from '../eval/report';
import type { GpuRuntime } from '../gpu/runtime';
import { PRESETS, type PresetName } from '../model/config';
import { generate } from '../model/generate';
import { GREEDY } from '../model/sampling';
import type { ModelParams } from '../model/checkpointIO';
import { GpuWeights, initialWeights } from '../model/weights';
import { type EncodedDoc, packDocuments } from '../data/packing';
import { tokenizerForModel } from '../tokenizer';
import { DEFAULT_SFT, evalLoss, trainSft } from '../train/sft/sft';
import { defaultRenderer } from '../train/rl/rollout';
import { encodeSftConversations } from './sftData';

export interface CopyProbeOptions {
  preset: PresetName;
  seed: number;
  /** Drill conversations in the training set (cycled). */
  drills: number;
  steps: number;
  batch: number;
  lr: number;
  /** Tokens per packed row. */
  seqLen: number;
  /** Held-out drills decoded at every probe. */
  heldOut: number;
  probeEvery: number;
  /** Initial gain of every q_norm/k_norm weight (1 = the usual init; larger = sharper attention from the start). */
  qkNormGain: number;
  /** Induction sequences (data/inductionDocs.ts) mixed into the training documents; 0 = drills alone. */
  induction: number;
  /** Share of the drills (training and held-out) that are email drills (data/emailDrills.ts); absent = 0. */
  emails?: number;
}

export const COPY_PROBE_DEFAULTS: CopyProbeOptions = {
  preset: 'nano', seed: 1, drills: 20_000, steps: 400, batch: 16, lr: 3e-3, seqLen: 256, heldOut: 64, probeEvery: 100, qkNormGain: 1, induction: 0,
};

export interface CopyProbePoint {
  step: number;
  /** Mean masked training loss of the steps since the last probe. */
  loss: number;
  /** Teacher-forced loss (nats per assistant token) on the held-out drills: copying lowers it before exact copy appears. */
  heldOutDrillLoss: number;
  /** The same on the string's FIRST token only: finding where the value starts in the request (no induction match leads there). */
  heldOutFirstTokenLoss: number;
  /** The same on the string's other tokens: copying once the start is given (what an induction head does). */
  heldOutRestLoss: number;
  /** Teacher-forced loss on held-out induction sequences (another seed's runs), NaN without --induction. */
  heldOutInductionLoss: number;
  exact: Rate;
  /** Share of held-out copied characters (letters of the drill string) produced before the first wrong token. */
  copiedPrefix: number;
  /** The first held-out drill: wanted string and what the model wrote. */
  example: { want: string; got: string };
}

/** Where a drill's copied string starts in its call: the echo drills' `text`, the email drills' `email`. */
const VALUE_KEY = /"(?:text|email)":\s*"/;
const VALUE_IN_CALL = new RegExp(`${VALUE_KEY.source}([^"]*)"`);
const textOf = (call: string) => VALUE_IN_CALL.exec(call)?.[1] ?? '';

/** The training drills and the held-out ones (another seed's stream, minus any string that occurs in training). */
export function copyProbeDrills(
  o: Pick<CopyProbeOptions, 'drills' | 'heldOut' | 'seed' | 'emails'>,
  alsoSeen: Iterable<string> = [],
): { train: ReturnType<typeof copyDrills>; heldOut: ReturnType<typeof copyDrills> } {
  const train = copyDrills(o.drills, o.seed, o.emails);
  const seen = new Set([...train.map((c) => textOf(c.messages[2].content)), ...alsoSeen]);
  const heldOut = copyDrills(o.heldOut * 4, o.seed + 0x9e37, o.emails).filter((c) => !seen.has(textOf(c.messages[2].content))).slice(0, o.heldOut);
  if (heldOut.length < o.heldOut) throw new Error(`copy probe: only ${heldOut.length} of ${o.heldOut} held-out drills have a string unseen in training`);
  return { train, heldOut };
}

/**
 * A held-out drill document with its mask cut down to the copied string's first token (`part` 'first')
 * or to its other tokens ('rest'): the assistant tokens from the one after `"text": "` (or `"email": "`) up to the one
 * that closes the string. Found by decoding the target's prefixes, so it holds for any tokenizer.
 */
export function valueMask(doc: EncodedDoc, decode: (ids: number[]) => string, part: 'first' | 'rest'): EncodedDoc {
  const start = doc.mask.indexOf(1);
  const mask = new Array<number>(doc.ids.length).fill(0);
  let first = -1;
  for (let j = start; j < doc.ids.length; j++) {
    const text = decode(doc.ids.slice(start, j + 1));
    const key = VALUE_KEY.exec(text);
    if (!key) continue;
    const value = text.slice(key.index + key[0].length);
    if (first < 0) {
      if (value.length === 0) continue;
      first = j;
    }
    if (value.includes('"')) break; // this token closes the string
    if ((part === 'first') === (j === first)) mask[j] = 1;
  }
  return { ids: doc.ids, mask };
}

/**
 * The held-out documents masked to one part of the copied string, without those where that part is empty:
 * with the trimmed Qwen3 vocabulary a short string can be a single token, which has no 'rest' (packing
 * refuses a document with nothing to learn from, and its loss would be 0/0).
 */
export function valueMaskedDocs(docs: readonly EncodedDoc[], decode: (ids: number[]) => string, part: 'first' | 'rest'): EncodedDoc[] {
  return docs.map((d) => valueMask(d, decode, part)).filter((d) => d.mask.includes(1));
}

/**
 * Exact copies among greedy generations: every token of the target up to and including its first
 * stop token (the chat format's `<|im_end|>`; the "\n" the template puts after it is not generated —
 * generation ends at the stop token). Also the letters of the wanted strings and how many of them
 * were written before the first mistake.
 */
export function scoreCopies(targets: readonly number[][], generated: readonly number[][], decode: (ids: number[]) => string, stopIds: readonly number[]): { exact: number; copied: number; letters: number } {
  let exact = 0;
  let copied = 0;
  let letters = 0;
  targets.forEach((target, i) => {
    const stop = target.findIndex((t) => stopIds.includes(t));
    const turn = stop < 0 ? target : target.slice(0, stop + 1);
    const g = generated[i];
    if (g.length >= turn.length && turn.every((t, j) => g[j] === t)) exact++;
    const want = textOf(decode(turn));
    const got = textOf(decode(g));
    letters += want.length;
    let k = 0;
    while (k < want.length && got[k] === want[k]) k++;
    copied += k;
  });
  return { exact, copied, letters };
}

/** The string a drill's echo call carries. */
export const drillText = (c: ReturnType<typeof copyDrills>[number]): string => textOf(c.messages[2].content);

/** A probe that continues an earlier one: its weights, and the drill strings it trained on (never held out here). */
export interface CopyProbeStart {
  weights: ModelParams;
  trainedStrings: Iterable<string>;
}

export async function runCopyProbe(
  rt: GpuRuntime,
  o: CopyProbeOptions,
  onPoint: (p: CopyProbePoint) => void = () => {},
  extra: { from?: CopyProbeStart; onProbe?: (p: CopyProbePoint, weights: ModelParams) => Promise<void> } = {},
): Promise<CopyProbePoint[]> {
  const cfg = PRESETS[o.preset];
  let init: ModelParams;
  if (extra.from) {
    init = extra.from.weights;
  } else {
    init = initialWeights(cfg, o.seed);
    for (const [name, v] of init) if (/\.(q_norm|k_norm)\.weight$/.test(name)) v.fill(o.qkNormGain);
  }
  const w = new GpuWeights(rt, cfg, init);
  const tok = await tokenizerForModel(cfg);
  const render = defaultRenderer(tok);
  const { train: trainConv, heldOut: heldConv } = copyProbeDrills(o, extra.from?.trainedStrings);
  const drillDocs = encodeSftConversations(trainConv, tok, render, o.seqLen).docs;
  // Induction runs draw from the tokens of training drill strings only (held-out strings may hold others).
  const pool = tokenPool(trainConv.slice(0, 2000).map(drillText), (t) => tok.encode(t));
  const train = [...drillDocs, ...inductionDocs(o.induction, pool, o.seed)];
  const held = encodeSftConversations(heldConv, tok, render, o.seqLen).docs;
  const pack = { seqLen: o.seqLen, padId: tok.padId, pack: true };
  const heldRows = packDocuments(held, pack);
  const decode = (ids: number[]) => tok.decode(ids);
  const firstRows = packDocuments(valueMaskedDocs(held, decode, 'first'), pack);
  const restRows = packDocuments(valueMaskedDocs(held, decode, 'rest'), pack);
  // fresh runs of another seed: a copy test of the bare repeat, whatever the training mix held
  const heldInductionRows = o.induction > 0 ? packDocuments(inductionDocs(64, pool, o.seed + 0x51ed), pack) : [];
  const stopIds = tok.encode('<|im_end|>');
  const points: CopyProbePoint[] = [];
  let lossSum = 0;
  let lossN = 0;
  const probe = async (step: number) => {
    const prompts = held.map((d) => d.ids.slice(0, d.mask.indexOf(1)));
    const targets = held.map((d, i) => d.ids.slice(prompts[i].length));
    const gens = await generate(rt, w, prompts, { ...GREEDY, maxNewTokens: Math.max(...targets.map((t) => t.length)) + 4, stopIds, seed: o.seed });
    const { exact, copied, letters } = scoreCopies(targets, gens.map((g) => g.tokens), (ids) => tok.decode(ids), stopIds);
    const heldOutDrillLoss = await evalLoss(rt, w, heldRows, o.batch, o.seqLen, tok.padId);
    const heldOutFirstTokenLoss = await evalLoss(rt, w, firstRows, o.batch, o.seqLen, tok.padId);
    const heldOutRestLoss = await evalLoss(rt, w, restRows, o.batch, o.seqLen, tok.padId);
    const heldOutInductionLoss = heldInductionRows.length ? await evalLoss(rt, w, heldInductionRows, o.batch, o.seqLen, tok.padId) : NaN;
    const p: CopyProbePoint = {
      step, loss: lossN ? lossSum / lossN : NaN, heldOutDrillLoss, heldOutFirstTokenLoss, heldOutRestLoss, heldOutInductionLoss, exact: wilson(exact, gens.length), copiedPrefix: letters ? copied / letters : 0,
      example: { want: textOf(tok.decode(targets[0])), got: tok.decode(gens[0].tokens).slice(0, 120) },
    };
    lossSum = 0;
    lossN = 0;
    points.push(p);
    onPoint(p);
    if (extra.onProbe) await extra.onProbe(p, await w.download());
  };
  try {
    const sft = { ...DEFAULT_SFT, batchSize: o.batch, seqLen: o.seqLen, steps: o.steps, lr: o.lr, warmupSteps: Math.min(20, o.steps), seed: o.seed };
    await trainSft(rt, w, { train, padId: tok.padId }, sft, (m) => {
      lossSum += m.loss;
      lossN++;
    }, { afterStep: async (s) => { if (s.step % o.probeEvery === 0 || s.step === o.steps) await probe(s.step); } });
  } finally {
    w.destroy();
  }
  return points;
}
