// Function-calling requests with a few word edits (EDA: Wei & Zou 2019, "Easy Data Augmentation"):
// a function word of the request is deleted, a function word is inserted, or two neighbouring words
// swap places. Why: with 8 train phrasings per tool a small model learns each phrasing whole, and
// an unseen one is read by its shared words — "what is the meaning of journey?" became
// `time(city="meaning")` because "what … is" starts a train `time` phrasing. Here the words that
// several tools' train phrasings share ("what", "is", "in", "of", …) appear, vanish and move in
// every tool's requests, so they stop telling tools apart, and only a tool's own cue words ("meaning",
// "forecast", "quote") are never deleted. The argument values are never touched.
// Honest by construction: every inserted word is a word of the train phrasings, and an edited
// request that reads as a validation or test phrasing (the split audit's own template match) is
// not used (requestEdits.test.ts; the split audit checks the edited stream too).
import type { FunctionCallingTask } from '../envs/functionCalling/types';
import { ROUTING_JOINERS, ROUTING_TEMPLATES } from '../envs/functionCalling/routingTemplates';
import { templatePattern } from '../eval/leakCheck';
import type { Rng } from '../util/rng';

/** Words in the train phrasings of each routing tool (lower case, letters only). */
const TRAIN_WORDS: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  Object.entries(ROUTING_TEMPLATES).map(([tool, lists]) => [tool, new Set(lists.train.flatMap(wordsOf))]),
);

/** Validation and test phrasings of every tool and joiner, as the split audit matches them (a value ≤ 3 words). */
const HELD_OUT_PATTERNS: readonly RegExp[] = [
  ...Object.values(ROUTING_TEMPLATES).flatMap((l) => [...l.validation, ...l.test]),
  ...ROUTING_JOINERS.validation, ...ROUTING_JOINERS.test,
].map((t) => new RegExp(templatePattern(t, 3)));

/** Tries per request before it is left unedited (an edit can land on a held-out phrasing). */
const TRIES = 10;

function wordsOf(phrasing: string): string[] {
  return phrasing.toLowerCase().replace(/\{[^}]*\}/g, ' ').split(/[^a-z]+/).filter((w) => w.length > 0);
}

/**
 * The words shared by the train phrasings of at least two of `tools` (the function words of this
 * tool set), sorted; null when a tool has no routing phrasings (not a routing task).
 */
export function sharedWords(tools: readonly string[]): string[] | null {
  const sets = tools.map((t) => TRAIN_WORDS.get(t));
  if (sets.some((s) => s === undefined)) return null;
  const count = new Map<string, number>();
  for (const s of sets as ReadonlySet<string>[]) for (const w of s) count.set(w, (count.get(w) ?? 0) + 1);
  return [...count].filter(([, c]) => c >= 2).map(([w]) => w).sort();
}

/** True when `text` reads as a validation or test phrasing (with any value of ≤ 3 words). */
export function readsAsHeldOut(text: string): boolean {
  return HELD_OUT_PATTERNS.some((p) => p.test(text));
}

/** Marker of the i-th protected value inside a request (no space, so a value stays one token). */
const mark = (i: number) => `\u0000${i}\u0000`;

/** One random edit of `tokens` (a copy): delete or insert a shared word, or swap two neighbours. */
function edit(tokens: readonly string[], shared: readonly string[], rng: Rng): string[] {
  const out = [...tokens];
  const bare = (t: string) => t.toLowerCase().replace(/[^a-z]/g, '');
  const deletable = out.map((t, i) => (!t.includes('\u0000') && shared.includes(bare(t)) ? i : -1)).filter((i) => i >= 0);
  const op = rng.int(0, 2);
  if (op === 0 && deletable.length > 0 && out.length > 2) {
    const at = rng.pick(deletable);
    const gone = out[at];
    out.splice(at, 1);
    // keep the sentence's closing mark ("in Lima?" loses "in", "how warm?" keeps "?")
    const tail = gone.match(/[?!.]+$/)?.[0];
    if (tail && at > 0 && !/[?!.]$/.test(out[at - 1])) out[at - 1] += tail;
  } else if (op === 1 && out.length >= 2) {
    const at = rng.int(0, out.length - 2);
    const strip = (t: string) => t.replace(/[?!.]+$/, '');
    const tail = at + 1 === out.length - 1 ? out[at + 1].match(/[?!.]+$/)?.[0] ?? '' : '';
    [out[at], out[at + 1]] = [out[at + 1], out[at]];
    if (tail) {
      out[at] = strip(out[at]);
      out[at + 1] = strip(out[at + 1]) + tail;
    }
  } else if (shared.length > 0) {
    out.splice(rng.int(0, out.length - 1), 0, rng.pick(shared)); // never after the closing mark
  }
  return out;
}

/**
 * `task` with its first user message edited by 1–2 random word edits (the expected calls are
 * unchanged). The argument values the request spells out are kept whole, and a tool's own cue words
 * are never deleted. A task that is not a single-call routing task, or whose edits all read as a
 * held-out phrasing, comes back unchanged (same object).
 */
export function withEditedRequest(task: FunctionCallingTask, rng: Rng): FunctionCallingTask {
  const shared = sharedWords(task.tools.map((t) => t.function.name));
  const at = task.question.findIndex((m) => m.role === 'user' && typeof m.content === 'string');
  // a two-call request keeps its joiner ("… , then …") as written: edits are for one request
  if (shared === null || at < 0 || task.groundTruth.length !== 1) return task;
  const request = task.question[at].content as string;
  // protect every string argument value the request contains (longest first: "New York" before "York")
  const values = [...new Set(task.groundTruth.flatMap((c) => Object.values(c).flatMap((args) => Object.values(args).flat(2))).filter((v): v is string => typeof v === 'string' && v.length > 0))]
    .filter((v) => request.includes(v))
    .sort((a, b) => b.length - a.length);
  let marked = request;
  values.forEach((v, i) => {
    marked = marked.split(v).join(mark(i));
  });
  const tokens = marked.split(' ');
  for (let t = 0; t < TRIES; t++) {
    let edited = edit(tokens, shared, rng);
    if (rng.next() < 0.5) edited = edit(edited, shared, rng);
    let text = edited.join(' ');
    values.forEach((v, i) => {
      text = text.split(mark(i)).join(v);
    });
    if (text !== request && !readsAsHeldOut(text)) {
      const question = task.question.map((m, i) => (i === at ? { ...m, content: text } : m));
      return { ...task, id: `${task.id}-edited`, question };
    }
  }
  return task;
}
