// Cheap rules fit on the TRAIN split of a function-calling task set, the baselines a model must
// beat on validation/test (issue: "the best value-type or keyword rule you can find"):
// - argument extractor: a span picker learned from train requests (their argument values are the
//   labels): candidate spans are runs of words outside the train phrasing vocabulary (every word
//   when all are known), as long as train values are; each is scored by naive Bayes over word
//   shape (Capitalised, ALLCAPS, lower, other: how often values vs phrasing words have it) plus
//   the log-frequency of its length and of the number of words after it in train requests;
// - majority tool: the tool most train requests ask for;
// - value-type rule: the most frequent tool per value type in train, given the request's TRUE value
//   type (the expected call's parameter name): an upper bound on any rule that sees only the type;
// - keyword rule: a decision stump over words — the known word of the request whose train requests
//   most often asked for one tool (highest precision, then most frequent) names the tool; no known
//   word → the majority tool.
// Each predicts ONE call (a two-call request fails), with the extracted value as its argument.
import type { FunctionCallingTask } from '../../envs/functionCalling/types';
import type { ToolSpec } from '../../envs/types';

/** The words of a text as the rules see them (letters, digits and inner ' . - kept). */
export function words(text: string): string[] {
  return (text.match(/[A-Za-z0-9][A-Za-z0-9'.-]*/g) ?? []).map((w) => w.replace(/[.'-]+$/, ''));
}

/** The request the agent reads: the last user message. */
export function requestOf(task: FunctionCallingTask): string {
  return [...task.question].reverse().find((m) => m.role === 'user')?.content ?? '';
}

/** The expected calls' (function, parameter, value) of a task with string values. */
function expectedCalls(task: FunctionCallingTask): { name: string; param: string; value: string }[] {
  return task.groundTruth.flatMap((g) => {
    const [name] = Object.keys(g);
    return Object.entries(g[name]).flatMap(([param, acceptable]) => (typeof acceptable[0] === 'string' && acceptable[0] !== '' ? [{ name, param, value: acceptable[0] }] : []));
  });
}

/** Lower-cased words of a train request that are not part of its argument values. */
function phrasingWords(task: FunctionCallingTask): string[] {
  const valueWords = new Set(expectedCalls(task).flatMap((c) => words(c.value).map((w) => w.toLowerCase())));
  return words(requestOf(task)).map((w) => w.toLowerCase()).filter((w) => !valueWords.has(w));
}

export type ArgumentExtractor = (request: string) => string;

type Shape = 'capitalised' | 'allcaps' | 'lower' | 'other';
function shapeOf(word: string): Shape {
  if (/^[A-Z][a-z]/.test(word)) return 'capitalised';
  if (/^[A-Z0-9]+$/.test(word) && /[A-Z]/.test(word)) return 'allcaps';
  if (/^[a-z]+$/.test(word)) return 'lower';
  return 'other';
}

/** log((count + 1) / (total + k)): add-one smoothed log-frequency. */
function logFreq(counts: Map<string | number, number>, key: string | number, k: number): number {
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  return Math.log(((counts.get(key) ?? 0) + 1) / (total + k));
}

function bump<K>(m: Map<K, number>, k: K): void {
  m.set(k, (m.get(k) ?? 0) + 1);
}

export function fitArgumentExtractor(train: readonly FunctionCallingTask[]): ArgumentExtractor {
  const vocabulary = new Set(train.flatMap(phrasingWords));
  const valueShapes = new Map<string, number>();
  const phraseShapes = new Map<string, number>();
  const lengths = new Map<number, number>();
  const tails = new Map<number, number>();
  for (const t of train) {
    const ws = words(requestOf(t));
    const value = expectedCalls(t)[0];
    if (value === undefined) continue;
    const vw = words(value.value);
    const at = ws.findIndex((_, i) => vw.every((w, j) => ws[i + j] === w));
    if (at < 0) continue;
    ws.forEach((w, i) => bump(i >= at && i < at + vw.length ? valueShapes : phraseShapes, shapeOf(w)));
    bump(lengths, vw.length);
    bump(tails, ws.length - at - vw.length);
  }
  const maxLen = Math.max(1, ...lengths.keys());
  const shapeScore = (w: string) => logFreq(valueShapes, shapeOf(w), 4) - logFreq(phraseShapes, shapeOf(w), 4);
  return (request) => {
    const ws = words(request);
    const unknown = ws.map((w) => !vocabulary.has(w.toLowerCase()));
    const anyUnknown = unknown.some(Boolean);
    let best = { score: -Infinity, text: ws.at(-1) ?? '' };
    for (let i = 0; i < ws.length; i++) {
      for (let len = 1; len <= maxLen && i + len <= ws.length; len++) {
        if (anyUnknown && !unknown.slice(i, i + len).every(Boolean)) break;
        const span = ws.slice(i, i + len);
        const score = span.reduce((a, w) => a + shapeScore(w), 0) + logFreq(lengths, len, maxLen) + logFreq(tails, ws.length - i - len, ws.length);
        if (score > best.score) best = { score, text: span.join(' ') };
      }
    }
    return best.text;
  };
}

/** A rule's prediction: the calls to make (none = answer in text). */
export type CallRule = (task: FunctionCallingTask) => { name: string; arguments: Record<string, unknown> }[];

function countTop(counts: Map<string, number>): string | undefined {
  let best: string | undefined;
  let top = -1;
  for (const [k, c] of [...counts.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) if (c > top) [best, top] = [k, c];
  return best;
}

function firstParam(tools: readonly ToolSpec[], name: string): string | undefined {
  return Object.keys(tools.find((t) => t.function.name === name)?.function.parameters.properties ?? {})[0];
}

/** One call of `name` with the extracted value under its first parameter. */
function callWith(task: FunctionCallingTask, name: string, extract: ArgumentExtractor): { name: string; arguments: Record<string, unknown> }[] {
  const param = firstParam(task.tools, name);
  return [{ name, arguments: param === undefined ? {} : { [param]: extract(requestOf(task)) } }];
}

export interface RoutingRules {
  majority: CallRule;
  valueType: CallRule;
  keyword: CallRule;
  /** The fitted extractor (for tests and inspection). */
  extract: ArgumentExtractor;
  /** The majority tool and its train share. */
  majorityTool: string;
}

/** Fits the three rules on train tasks (their first expected call is the label). */
export function fitRoutingRules(train: readonly FunctionCallingTask[]): RoutingRules {
  const labelled = train.filter((t) => t.groundTruth.length > 0);
  if (labelled.length === 0) throw new Error('fitRoutingRules: no train task with an expected call to fit on');
  const extract = fitArgumentExtractor(labelled);
  const toolCounts = new Map<string, number>();
  const byType = new Map<string, Map<string, number>>();
  const byWord = new Map<string, Map<string, number>>();
  for (const t of labelled) {
    const first = expectedCalls(t)[0] ?? { name: Object.keys(t.groundTruth[0])[0], param: '' };
    toolCounts.set(first.name, (toolCounts.get(first.name) ?? 0) + 1);
    const typeCounts = byType.get(first.param) ?? new Map<string, number>();
    typeCounts.set(first.name, (typeCounts.get(first.name) ?? 0) + 1);
    byType.set(first.param, typeCounts);
    for (const w of new Set(phrasingWords(t))) {
      const c = byWord.get(w) ?? new Map<string, number>();
      c.set(first.name, (c.get(first.name) ?? 0) + 1);
      byWord.set(w, c);
    }
  }
  const majorityTool = countTop(toolCounts)!;
  const typeTool = new Map([...byType.entries()].map(([type, counts]) => [type, countTop(counts)!]));
  // per word: its best tool, that tool's share of the word's train requests, and the word's support
  const wordTool = new Map([...byWord.entries()].map(([w, counts]) => {
    const tool = countTop(counts)!;
    const total = [...counts.values()].reduce((a, b) => a + b, 0);
    return [w, { tool, precision: counts.get(tool)! / total, support: total }] as const;
  }));
  return {
    majorityTool,
    extract,
    majority: (task) => callWith(task, majorityTool, extract),
    valueType: (task) => {
      const type = expectedCalls(task)[0]?.param ?? '';
      return callWith(task, typeTool.get(type) ?? majorityTool, extract);
    },
    keyword: (task) => {
      let best: { tool: string; precision: number; support: number } | undefined;
      for (const w of words(requestOf(task)).map((x) => x.toLowerCase())) {
        const s = wordTool.get(w);
        if (s !== undefined && (best === undefined || s.precision > best.precision || (s.precision === best.precision && s.support > best.support))) best = s;
      }
      return callWith(task, best?.tool ?? majorityTool, extract);
    },
  };
}

/**
 * The keyword rule of the BFCL-style mix, fit on train: per word, how often train requests with it
 * asked for each function (or for none: irrelevance). For a request it scores each OFFERED tool by
 * its best word (precision, then support) and calls the best one with no arguments — it cannot
 * produce BFCL arguments, so its whole-call success comes from irrelevance tasks (no call);
 * function_choice shows its routing. No known word for any offered tool → no call.
 */
export function fitBfclKeywordRule(train: readonly FunctionCallingTask[]): CallRule {
  const NONE = '';
  const byWord = new Map<string, Map<string, number>>();
  for (const t of train) {
    const names = t.groundTruth.length === 0 ? [NONE] : [...new Set(t.groundTruth.map((g) => Object.keys(g)[0]))];
    for (const w of new Set(words(requestOf(t)).map((x) => x.toLowerCase()))) {
      const c = byWord.get(w) ?? new Map<string, number>();
      for (const n of names) c.set(n, (c.get(n) ?? 0) + 1);
      byWord.set(w, c);
    }
  }
  return (task) => {
    const offered = new Set(task.tools.map((x) => x.function.name));
    let best: { tool: string; precision: number; support: number } | undefined;
    for (const w of new Set(words(requestOf(task)).map((x) => x.toLowerCase()))) {
      const counts = byWord.get(w);
      if (counts === undefined) continue;
      const total = [...counts.values()].reduce((a, b) => a + b, 0);
      for (const [tool, c] of counts) {
        if (tool !== NONE && !offered.has(tool)) continue;
        const s = { tool, precision: c / total, support: total };
        if (best === undefined || s.precision > best.precision || (s.precision === best.precision && s.support > best.support)) best = s;
      }
    }
    return best === undefined || best.tool === NONE ? [] : [{ name: best.tool, arguments: {} }];
  };
}
