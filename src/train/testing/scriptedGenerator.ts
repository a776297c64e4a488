// A CPU stand-in for the model in rollout/loop tests: each row's reply is a function of its prompt
// text, encoded with the tokenizer and closed with <|im_end|>; log-probs are seeded pseudo-random
// negatives. Records every call so tests can check batching.
import type { Generation } from '../../model/generate';
import type { Tokenizer } from '../../tokenizer';
import { Rng } from '../../util/rng';
import type { TurnGenerator } from '../rl/rollout';

export interface ScriptedGenerator extends TurnGenerator {
  /** Rows per generate() call, in call order. */
  readonly calls: number[];
}

export function scriptedGenerator(tok: Tokenizer, reply: (promptText: string, row: number) => string, maxPositions = 512): ScriptedGenerator {
  const calls: number[] = [];
  return {
    maxPositions,
    calls,
    async generate(prompts, opts) {
      calls.push(prompts.length);
      const rng = new Rng(opts.seed);
      return prompts.map((p, row): Generation => {
        const full = [...tok.encode(reply(tok.decode(p), row)), opts.stopId];
        const tokens = full.slice(0, opts.maxNewTokens);
        return { tokens, logprobs: tokens.map(() => -rng.uniform(0.01, 2)), finishReason: tokens.length === full.length ? 'stop' : 'length' };
      });
    },
  };
}

/** The fake calculator family's expert, read off the prompt: call on turn 1, answer from the tool result on turn 2. */
export function fakeExpertReply(promptText: string): string {
  const user = [...promptText.matchAll(/What is (\d+) (plus|times) (\d+)\?/g)].at(-1);
  const result = [...promptText.matchAll(/<tool_response>\n([^<]*)\n<\/tool_response>/g)].at(-1);
  if (result) return `The answer is ${result[1].trim()}.`;
  if (!user) return 'I do not know.';
  const op = user[2] === 'plus' ? 'add' : 'mul';
  return `<tool_call>\n{"name": "calculate", "arguments": {"a": ${user[1]}, "b": ${user[3]}, "op": "${op}"}}\n</tool_call>`;
}
