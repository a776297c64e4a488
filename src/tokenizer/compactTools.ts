// Compact tool rendering for the byte-tokenizer presets (nano/tiny/small). Qwen3's template puts
// every tool's JSON schema plus ~450 characters of instructions in the system block: ~1 200 byte
// tokens for four small tools, more than a nano model's context. Here each tool becomes one line
// `name(param, …): description` appended to the system message, and the template gets no tools;
// everything else (turn markup, <tool_call> blocks, <tool_response>) is the Qwen3 format unchanged.
import type { TokenizerKind } from '../model/config';
import type { ChatMessage, ToolSpec } from './chatTypes';

export function compactToolLines(tools: readonly ToolSpec[]): string {
  return tools
    .map((t) => `${t.function.name}(${Object.keys(t.function.parameters.properties ?? {}).join(', ')}): ${t.function.description}`)
    .join('\n');
}

/** (messages, tools) → the same conversation with the tools listed compactly in the system message. */
export function withCompactTools(messages: readonly ChatMessage[], tools: readonly ToolSpec[]): { messages: ChatMessage[]; tools: ToolSpec[] } {
  if (tools.length === 0) return { messages: [...messages], tools: [] };
  const lines = `Tools:\n${compactToolLines(tools)}`;
  const out = [...messages];
  if (out[0]?.role === 'system') out[0] = { ...out[0], content: `${out[0].content}\n${lines}` };
  else out.unshift({ role: 'system', content: lines });
  return { messages: out, tools: [] };
}

/** How tools are shown to a model: one line each in the system message, or Qwen3's JSON-schema block. */
export type ToolRendering = 'compact' | 'json';

/**
 * The rendering each tokenizer's presets use. Compact for the small presets: byte presets (the JSON
 * block alone is ~1 200 tokens for four small tools) and trimmed-Qwen3 presets (JSON adds ~1 600
 * of ~2 300 tokens to a service episode, measured in README "Context: tokens per episode");
 * Qwen3's template as is for the full Qwen3 vocabulary (a real Qwen3 model expects it).
 */
export function toolRenderingFor(kind: TokenizerKind): ToolRendering {
  return kind === 'qwen3' ? 'json' : 'compact';
}

/** (messages, tools) as `rendering` shows them: compact moves the tools into the system message. */
export function withToolRendering(messages: readonly ChatMessage[], tools: readonly ToolSpec[], rendering: ToolRendering): { messages: ChatMessage[]; tools: ToolSpec[] } {
  return rendering === 'compact' ? withCompactTools(messages, tools) : { messages: [...messages], tools: [...tools] };
}
