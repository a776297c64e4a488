// The chat and tool types of the Qwen3 chat format (OpenAI / HF conventions). The chat format owns
// them; environments and data re-export or import them from here.

/** A chat message in the OpenAI / HF chat format (what the Qwen3 chat template renders). */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  /** Assistant messages: the calls it made (also present verbatim in `content` as <tool_call> blocks when rendered by us). */
  tool_calls?: { type: 'function'; function: { name: string; arguments: Record<string, unknown> } }[];
  /** Tool messages: the name of the tool that produced this result. */
  name?: string;
}

/** JSON schema subset used for tool parameters (OpenAI function-calling style). */
export interface JsonSchema {
  type?: 'object' | 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'null';
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: (string | number | boolean)[];
  default?: unknown;
  additionalProperties?: boolean;
}

/** An OpenAI-style function tool spec. */
export interface ToolSpec {
  type: 'function';
  function: { name: string; description: string; parameters: JsonSchema };
}
