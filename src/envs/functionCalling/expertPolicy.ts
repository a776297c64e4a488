// The expert: reads the task's ground truth, makes exactly the expected calls in the first turn
// (a canonical acceptable value per parameter, optional ones left out where allowed), then
// answers in text from the tool results. Irrelevance tasks get a text answer with no call.
// The seed only varies the wording, never the calls, so expert trajectories always succeed.
import { formatToolCalls, type ToolCall } from '../../tokenizer/toolCalls';
import { Rng } from '../../util/rng';
import type { ChatMessage, JsonSchema, Policy, ToolSpec } from '../types';
import { expectedCallParts, kindOf } from './bfclChecker';
import { mixSeeds } from '../../util/seeds';
import type { FunctionCallingTask, GroundTruthCall } from './types';

const OMIT = Symbol('omit');
const PREAMBLES = ['Let me check that.', 'I will look that up.', 'Sure, calling the tools now.', 'One moment.'];
const SUMMARY_OPENERS = ['Here is what I found:', 'Done. The results:', 'This is the information you asked for:', 'Results:'];
const DECLINES = [
  'None of the available functions can help with this, so I will answer directly.',
  'No tool fits this request; answering without calling any function.',
  'The functions I have do not cover this, so here is a direct reply.',
];
const MAX_SUMMARY_CHARS = 600; // the expert's answer quotes tool results up to this length

/** First acceptable value that is not the omission marker, with nested BFCL dicts resolved. */
function pickValue(acceptable: unknown, schema: JsonSchema | undefined): unknown {
  const options = Array.isArray(acceptable) ? acceptable : [acceptable];
  const value = options.find((v) => v !== '');
  if (value === undefined) return OMIT;
  if (schema?.type === 'object' && kindOf(value) === 'object') return resolveDict(value as Record<string, unknown>, schema);
  if (schema?.type === 'array' && schema.items?.type === 'object' && Array.isArray(value)) {
    return value.map((item) => (kindOf(item) === 'object' ? resolveDict(item as Record<string, unknown>, schema.items) : item));
  }
  return value;
}

/** A BFCL dict answer maps keys to acceptable-value lists; the expert sends one value per key. */
function resolveDict(answer: Record<string, unknown>, schema: JsonSchema | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, options] of Object.entries(answer)) {
    const list = Array.isArray(options) ? options : [options];
    if (list.includes('')) continue;
    const v = pickValue(list, schema?.properties?.[key]);
    if (v !== OMIT) out[key] = v;
  }
  return out;
}

/** The call the expert makes for one expected call. */
export function canonicalCall(expected: GroundTruthCall, tools: ToolSpec[]): ToolCall {
  const { name, params } = expectedCallParts(expected);
  const fn = tools.find((t) => t.function.name === name)?.function;
  const required = fn?.parameters.required ?? [];
  const args: Record<string, unknown> = {};
  for (const [param, acceptable] of Object.entries(params)) {
    if (acceptable.includes('') && !required.includes(param)) continue;
    const v = pickValue(acceptable, fn?.parameters.properties?.[param]);
    if (v !== OMIT) args[param] = v;
  }
  return { name, arguments: args };
}

function lastToolResults(messages: ChatMessage[]): string[] {
  const out: string[] = [];
  for (let i = messages.length - 1; i >= 0 && messages[i].role === 'tool'; i--) out.unshift(messages[i].content);
  return out;
}

/** Expert for one task; `seed` varies the wording of the prose around the calls. */
export function functionCallingExpert(task: FunctionCallingTask, seed: number): Policy {
  return async (messages) => {
    const assistantTurns = messages.filter((m) => m.role === 'assistant').length;
    const rng = new Rng(mixSeeds(seed, task.resultSeed, assistantTurns));
    if (assistantTurns === 0 && task.check === 'relevance') {
      // BFCL relevance items have no ground truth: any call to an offered function is right.
      const tool = task.tools[0];
      return tool === undefined ? rng.pick(DECLINES) : formatToolCalls([{ name: tool.function.name, arguments: {} }]);
    }
    if (assistantTurns === 0 && task.groundTruth.length > 0) {
      const calls = formatToolCalls(task.groundTruth.map((g) => canonicalCall(g, task.tools)));
      return !task.singleTurn && rng.next() < 0.3 ? `${rng.pick(PREAMBLES)}\n${calls}` : calls;
    }
    if (assistantTurns === 0) return rng.pick(DECLINES);
    // '<' is masked so quoted results can never be read back as tags.
    const results = lastToolResults(messages).join('\n').replace(/</g, '‹');
    const quoted = results.length > MAX_SUMMARY_CHARS ? `${results.slice(0, MAX_SUMMARY_CHARS)}…` : results;
    return `${rng.pick(SUMMARY_OPENERS)}\n${quoted || 'the calls returned nothing.'}`;
  };
}
