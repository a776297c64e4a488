// Short multi-turn tool-calling conversations for SFT of the small presets, built from the routing
// task set: user request → assistant <tool_call> → tool result (from the real environment) →
// a short assistant answer that names what was looked up (kept short and learnable: the nano
// presets train on these in minutes on a CPU adapter). `formatOnly` swaps in a random one of the four tools (right
// format and argument, chance-level routing) — the warm start GRPO has to improve on.
import type { ChatMessage, Split, ToolSpec } from '../envs/types';
import { generateRoutingTask, routingFamily } from '../envs/functionCalling';
import { formatToolCalls, parseToolCalls, type ToolCall } from '../tokenizer/toolCalls';
import { Rng } from '../util/rng';

export interface ToolChat {
  messages: ChatMessage[];
  tools: ToolSpec[];
  /** The call the assistant makes (what greedy decoding should reproduce). */
  call: ToolCall;
}

/** The closing answer after the tool result, per tool. */
export function closingAnswer(tool: string): string {
  return `Here is the ${tool === 'define' ? 'meaning' : tool === 'time' ? 'local time' : tool}.`;
}

export async function routingToolChats(n: number, seed: number, split: Split, opts: { formatOnly?: boolean } = {}): Promise<ToolChat[]> {
  const rng = new Rng(seed ^ 0x7c3a);
  const out: ToolChat[] = [];
  for (let i = 0; i < n; i++) {
    const task = generateRoutingTask(seed, i, split);
    const env = routingFamily.createEnv();
    const { messages, tools } = env.reset(task);
    const expert = await routingFamily.expertPolicy(task, seed)(messages, tools);
    const gold = parseToolCalls(expert).calls[0];
    let call = gold;
    if (opts.formatOnly) {
      const tool = rng.pick(tools).function;
      const param = Object.keys(tool.parameters.properties ?? {})[0];
      call = { name: tool.name, arguments: { [param]: Object.values(gold.arguments)[0] } };
    }
    const callText = formatToolCalls([call]);
    const step = await env.step(callText);
    const toolMsg = step.messages.find((m) => m.role === 'tool');
    const result = toolMsg?.content ?? '';
    out.push({
      messages: [
        ...messages,
        { role: 'assistant', content: callText },
        { role: 'tool', content: result, name: call.name },
        { role: 'assistant', content: closingAnswer(call.name) },
      ],
      tools: [...tools],
      call,
    });
  }
  return out;
}
