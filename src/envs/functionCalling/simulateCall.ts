// Deterministic simulated execution of validated calls: catalogue APIs use their own simulator,
// routing tools and loaded BFCL functions get a small generic result. The result depends only on
// (task result seed, function name, canonical arguments), so replays see identical observations.
import { Rng } from '../../util/rng';
import { catalogueFunction } from './catalogue';
import { canonicalJson } from '../../util/canonicalJson';
import { hashString, mixSeeds } from '../../util/seeds';
import type { ScoredCall } from './types';

const SKIES = ['sunny', 'cloudy', 'rainy', 'windy', 'snowy'];

const HEADLINES = ['beats estimates', 'announces a new product', 'shares slip after report', 'names a new chief executive', 'expands overseas'];

/** Results of the routing tools (see routingTask.ts). */
function simulateRoutingTool(name: string, args: Record<string, unknown>, rng: Rng): unknown | undefined {
  switch (name) {
    case 'weather':
      return { city: args.city, temp_c: rng.int(-5, 35), sky: rng.pick(SKIES) };
    case 'time':
      return { city: args.city, time: `${String(rng.int(0, 23)).padStart(2, '0')}:${String(rng.int(0, 59)).padStart(2, '0')}` };
    case 'price':
      return { ticker: args.ticker, price: Math.round(rng.uniform(5, 900) * 100) / 100 };
    case 'define':
      return { word: args.word, definition: `a common English word (${rng.pick(['noun', 'verb', 'adjective'])})` };
    case 'news':
      return { ticker: args.ticker, headline: `${String(args.ticker)} ${rng.pick(HEADLINES)}` };
    case 'translate':
      return { word: args.word, language: 'Spanish', translation: `[es] ${String(args.word)}` };
    case 'email':
      return { to: args.name, status: 'sent' };
    case 'phone':
      return { to: args.name, status: rng.pick(['connected', 'voicemail', 'no answer']) };
    default:
      return undefined;
  }
}

/** Runs one schema-valid call; returns the JSON text the model reads as the tool result. */
export function simulateCall(resultSeed: number, call: ScoredCall): string {
  const rng = new Rng(mixSeeds(resultSeed, hashString(call.name), hashString(canonicalJson(call.arguments))));
  let result: unknown;
  try {
    result = catalogueFunction(call.name)?.simulate(call.arguments, rng) ?? simulateRoutingTool(call.name, call.arguments, rng);
  } catch {
    result = undefined; // a simulator choking on odd (but schema-valid) values falls back to the generic result
  }
  result ??= { status: 'ok', function: call.name, request_id: `req-${rng.int(100000, 999999)}` };
  return JSON.stringify(result);
}
