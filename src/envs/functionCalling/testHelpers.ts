// Shared by this family's tests: plays one episode with a policy, and a seeded random policy.
import { formatToolCalls, type ToolCall } from '../../tokenizer/toolCalls';
import { Rng } from '../../util/rng';
import type { ChatMessage, Environment, JsonSchema, Policy, StepResult, ToolSpec } from '../types';
import { FunctionCallingEnv } from './environment';
import type { FunctionCallingTask } from './types';

/** Plays `task` with `policy` until done (the env enforces maxTurns); returns the last step and the transcript. */
export async function playEpisode(task: FunctionCallingTask, policy: Policy, env: Environment<FunctionCallingTask> = new FunctionCallingEnv()): Promise<{ last: StepResult; transcript: ChatMessage[] }> {
  const { messages, tools } = env.reset(task);
  const transcript = [...messages];
  for (;;) {
    const text = await policy(transcript, tools);
    transcript.push({ role: 'assistant', content: text });
    const step = await env.step(text);
    transcript.push(...step.messages);
    if (step.done) return { last: step, transcript };
  }
}

const WORDS = ['Paris', 'hello', 'AAPL', 'meters', 'celsius', '2025-01-01', 'yes', 'none', 'x', 'weather', 'Tokyo', 'USD'];

function randomValue(rng: Rng, schema: JsonSchema | undefined, depth = 0): unknown {
  const type = rng.next() < 0.85 ? schema?.type : rng.pick(['string', 'integer', 'number', 'boolean', 'array'] as const);
  if (schema?.enum && rng.next() < 0.5) return rng.pick(schema.enum);
  switch (type) {
    case 'integer':
      return rng.int(0, 100);
    case 'number':
      return Math.round(rng.uniform(0, 1000) * 10) / 10;
    case 'boolean':
      return rng.next() < 0.5;
    case 'array':
      return depth > 2 ? [] : Array.from({ length: rng.int(0, 3) }, () => randomValue(rng, schema?.items, depth + 1));
    default:
      return rng.pick(WORDS);
  }
}

/** A call to a random offered tool (sometimes an invented one) with random arguments. */
export function randomCall(rng: Rng, tools: ToolSpec[]): ToolCall {
  if (tools.length === 0 || rng.next() < 0.1) return { name: rng.pick(['do_it', 'search', 'lookup']), arguments: {} };
  const fn = rng.pick(tools).function;
  const args: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(fn.parameters.properties ?? {})) if (rng.next() < 0.7) args[name] = randomValue(rng, schema);
  if (rng.next() < 0.2) args[rng.pick(['extra', 'q', 'mode'])] = randomValue(rng, undefined);
  return { name: fn.name, arguments: args };
}

/** Seeded random policy: random text 30% of turns, otherwise 1-3 random calls. */
export function randomPolicy(seed: number): Policy {
  const rng = new Rng(seed);
  return async (_messages, tools) => {
    if (rng.next() < 0.3) return Array.from({ length: rng.int(1, 12) }, () => rng.pick(WORDS)).join(' ');
    return formatToolCalls(Array.from({ length: rng.int(1, 3) }, () => randomCall(rng, tools)));
  };
}
