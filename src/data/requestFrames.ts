// Function-calling requests rebuilt from a generic frame and one of the tool's cue words: "need the
// forecast for Lima", "Lima - stock price?". Why: with 8 train phrasings per tool a small model learns
// each phrasing whole and routes an unseen one by the words it shares with a train phrasing of
// another tool ("what is the meaning of journey?" → `time`, README "What learns today"). Word edits
// (requestEdits.ts) move the shared words around but keep each phrasing's shape; frames break the
// shape itself: the same 16 frames carry every tool's cue, so the frame says nothing about the tool
// and only the cue word does.
// Honest by construction: every cue is words of that tool's own train phrasings (and of no other
// routing tool's), the frames are tool-agnostic text written for this file, and a framed phrasing
// is dropped when its words (lower case, punctuation dropped) are those of a validation or test
// phrasing of any tool, or one word away from one of its own tool's ("{x} forecast" against the
// validation "{x} forecast today?") — stricter than the train phrasings themselves ('{x} time?' is one
// word from the test '{x} local time?'), or when the split audit's template match reads a held-out
// phrasing inside it. requestFrames.test.ts checks it; the split audit checks the framed SFT stream too.
import type { FunctionCallingTask } from '../envs/functionCalling/types';
import { ROUTING_TEMPLATES } from '../envs/functionCalling/routingTemplates';
import type { Rng } from '../util/rng';
import { readsAsHeldOut } from './requestEdits';

/** Per routing tool, noun cues taken word for word from its train phrasings. */
export const TOOL_CUES: Readonly<Record<string, readonly string[]>> = {
  weather: ['weather', 'forecast', 'temperature'],
  time: ['time', 'local time', 'current time', 'clock', 'hour', 'time zone'],
  price: ['price', 'stock price', 'quote', 'share price', 'stock quote'],
  define: ['meaning', 'definition'],
  translate: ['Spanish', 'translation', 'Spanish word'],
  news: ['news', 'headlines', 'latest news', 'stories'],
  email: ['email'],
  phone: ['call'],
};

/** Tool-agnostic frames: {c} = a cue of the task's tool, {x} = the argument value. */
export const REQUEST_FRAMES: readonly string[] = [
  '{c} {x}', '{x} {c}', '{c} for {x}?', '{c} of {x}', '{x}: {c}?', 'need the {c} for {x}', 'check the {c} of {x}',
  'look up {c} for {x}', 'I want the {c} on {x}', 'find {c} for {x} pls', '{c} please, {x}', 'can I get the {c} for {x}?',
  'lookup: {x} {c}', '{x} - {c}?', 'quick {c} check: {x}', 'the {c} for {x}, please',
];

/** A phrasing's words: lower case, the value slot kept as "{x}", punctuation dropped. */
export function phrasingWords(phrasing: string): string {
  return phrasing.toLowerCase().replace(/\{x\}/g, ' xslotx ').split(/[^a-z]+/).filter((w) => w.length > 0).join(' ');
}

/** Word-level edit distance (insert, delete, substitute one word). */
export function wordDistance(a: string, b: string): number {
  const [x, y] = [a.split(' '), b.split(' ')];
  let row = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const next = [i];
    for (let j = 1; j <= y.length; j++) next.push(Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (x[i - 1] === y[j - 1] ? 0 : 1)));
    row = next;
  }
  return row[y.length];
}

const heldOutWords = (tool: string) => [...ROUTING_TEMPLATES[tool].validation, ...ROUTING_TEMPLATES[tool].test].map(phrasingWords);
/** The words of every validation and test phrasing, of every routing tool. */
const HELD_OUT_WORDS: ReadonlySet<string> = new Set(Object.keys(ROUTING_TEMPLATES).flatMap(heldOutWords));

/** Per tool, the framed phrasings ({x} left in): no held-out phrasing's words, none one word from its tool's, no train phrasing already. */
export const FRAMED_PHRASINGS: ReadonlyMap<string, readonly string[]> = new Map(
  Object.entries(TOOL_CUES).map(([tool, cues]) => {
    const train = new Set(ROUTING_TEMPLATES[tool].train.map(phrasingWords));
    const own = heldOutWords(tool);
    const framed = [...new Set(cues.flatMap((c) => REQUEST_FRAMES.map((f) => f.replace('{c}', c))))];
    return [tool, framed.filter((p) => {
      const w = phrasingWords(p);
      // readsAsHeldOut: the split audit's own template match ("can I get the stock quote for {x}?" holds the test "get the {x} quote")
      return !HELD_OUT_WORDS.has(w) && !train.has(w) && own.every((h) => wordDistance(w, h) > 1) && !readsAsHeldOut(p.replace('{x}', 'Lima'));
    })];
  }),
);

/**
 * `task` with its request replaced by a framed phrasing of its tool around the same value (the
 * expected call is unchanged). A task that is not a single-call routing task, or whose request does
 * not contain its value, comes back unchanged (same object).
 */
export function withFramedRequest(task: FunctionCallingTask, rng: Rng): FunctionCallingTask {
  const at = task.question.findIndex((m) => m.role === 'user' && typeof m.content === 'string');
  if (at < 0 || task.groundTruth.length !== 1) return task;
  const [tool, args] = Object.entries(task.groundTruth[0])[0];
  const phrasings = FRAMED_PHRASINGS.get(tool);
  const values = Object.values(args).flat();
  if (phrasings === undefined || values.length !== 1 || typeof values[0] !== 'string') return task;
  const value = values[0];
  if (!(task.question[at].content as string).includes(value)) return task;
  const content = rng.pick(phrasings).replace('{x}', value);
  const question = task.question.map((m, i) => (i === at ? { ...m, content } : m));
  return { ...task, id: `${task.id}-framed`, question };
}
