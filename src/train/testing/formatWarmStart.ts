// Format-only SFT data for the RL warm start (the learning test and `npm run learn`): each
// conversation is exactly an RL episode's first turn — the rendered prompt, then a well-formed
// <tool_call> with the request's argument value — but the function is a RANDOM offered one (its
// own parameter name carries the value). The model learns the format and to copy the argument,
// while routing stays at chance (1 / number of tools): what GRPO then has to learn.
// Optionally a share of the requests get a made-up value of the same shape ("Paris" → "Qvbne"):
// a value that cannot be memorised makes copying from the request the only way to lower the loss,
// which is what the small presets are slowest to learn. And a share can be short drills: the same
// request and call with the tool list left out of the system message (~4× fewer tokens; with RoPE
// the request-to-call offsets, what copying depends on, are the same as in the full prompt).
import type { EncodedDoc } from '../../data/packing';
import { canonicalCall } from '../../envs/functionCalling/expertPolicy';
import type { FunctionCallingTask } from '../../envs/functionCalling/types';
import type { EnvFamily } from '../../envs/types';
import { appendAssistantTurn, encodePrompt, formatToolCalls, type ChatFormatOptions, type Tokenizer } from '../../tokenizer';
import { Rng } from '../../util/rng';
import type { PromptRenderer } from '../rl/rollout';

/** The call a format-only demonstration makes: a random tool, the gold call's first value under that tool's first parameter. */
export function formatOnlyCall(task: FunctionCallingTask, rng: Rng): { name: string; arguments: Record<string, unknown> } {
  if (task.groundTruth.length === 0) throw new Error(`format-only data: task ${task.id} has no expected call (irrelevance tasks cannot be used)`);
  const gold = canonicalCall(task.groundTruth[0], task.tools);
  const tool = rng.pick(task.tools).function;
  const param = Object.keys(tool.parameters.properties ?? {})[0];
  const value = Object.values(gold.arguments)[0];
  return { name: tool.name, arguments: param === undefined ? {} : { [param]: value } };
}

/** A random string with the same character classes as `value` (upper, lower, digit; others kept). */
export function lookalike(value: string, rng: Rng): string {
  const pick = (chars: string) => chars[rng.int(0, chars.length - 1)];
  return value.replace(/[A-Z]/g, () => pick('ABCDEFGHIJKLMNOPQRSTUVWXYZ')).replace(/[a-z]/g, () => pick('abcdefghijklmnopqrstuvwxyz')).replace(/[0-9]/g, () => pick('0123456789'));
}

/** The task with its (first) argument value replaced by a lookalike, in the request and the ground truth. */
export function withMadeUpValue(task: FunctionCallingTask, rng: Rng): FunctionCallingTask {
  const gold = canonicalCall(task.groundTruth[0], task.tools);
  const [param, value] = Object.entries(gold.arguments)[0] ?? [];
  const last = task.question.at(-1);
  if (typeof value !== 'string' || last === undefined || !last.content.includes(value)) return task;
  const fake = lookalike(value, rng);
  return {
    ...task,
    question: [...task.question.slice(0, -1), { ...last, content: last.content.replace(value, fake) }],
    groundTruth: [{ [gold.name]: { [param]: [fake] } }],
  };
}

export interface FormatOnlyOptions {
  /** Share of documents whose request value is made up (0 … 1; default 0). */
  madeUpValues?: number;
  /** Share of documents rendered without the tool list (short drills; 0 … 1; default 0). */
  shortDrills?: number;
  fmt?: ChatFormatOptions;
}

/** One SFT document per task: prompt (mask 0) + the format-only call and <|im_end|> (mask 1). */
export function formatOnlyDocs(family: EnvFamily<FunctionCallingTask>, tasks: readonly FunctionCallingTask[], tok: Tokenizer, render: PromptRenderer, seed: number, opts: FormatOnlyOptions = {}): EncodedDoc[] {
  const rng = new Rng(seed);
  const env = family.createEnv();
  const fmt = opts.fmt ?? {};
  return tasks.map((original) => {
    const task = rng.next() < (opts.madeUpValues ?? 0) ? withMadeUpValue(original, rng) : original;
    const opening = env.reset(task); // the same opening messages the rollout sees
    const shown = rng.next() < (opts.shortDrills ?? 0) ? { messages: opening.messages, tools: [] } : render(opening.messages, opening.tools);
    const seq = encodePrompt(tok, shown.messages, shown.tools, fmt);
    appendAssistantTurn(tok, seq, formatToolCalls([formatOnlyCall(task, rng)]), fmt);
    return { ids: seq.ids, mask: seq.assistantMask };
  });
}
