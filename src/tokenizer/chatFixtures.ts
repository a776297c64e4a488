// Conversations shared by the chat-format tests (test support only; nothing in the app imports it).

import type { ChatMessage, ToolSpec } from './chatTypes';

export const WEATHER_TOOLS: ToolSpec[] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Current weather for a city.',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
];

/** system + user + assistant-with-tool-call + tool + assistant. */
export const WEATHER_CHAT: ChatMessage[] = [
  { role: 'system', content: 'You are a weather bot.' },
  { role: 'user', content: 'Weather in Paris?' },
  { role: 'assistant', content: '', tool_calls: [{ type: 'function', function: { name: 'get_weather', arguments: { city: 'Paris' } } }] },
  { role: 'tool', name: 'get_weather', content: '{"temp_c": 21}' },
  { role: 'assistant', content: 'It is 21 °C in Paris.' },
];

/** The system block Qwen3's template writes for WEATHER_TOOLS after "You are a weather bot." (checked by hand). */
export const WEATHER_SYSTEM_BLOCK =
  '<|im_start|>system\n' +
  'You are a weather bot.\n\n' +
  '# Tools\n\n' +
  'You may call one or more functions to assist with the user query.\n\n' +
  'You are provided with function signatures within <tools></tools> XML tags:\n' +
  '<tools>\n' +
  '{"type": "function", "function": {"name": "get_weather", "description": "Current weather for a city.", ' +
  '"parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}\n' +
  '</tools>\n\n' +
  'For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n' +
  '<tool_call>\n' +
  '{"name": <function-name>, "arguments": <args-json-object>}\n' +
  '</tool_call><|im_end|>\n';

/** The two assistant turns of WEATHER_CHAT as generated (thinking off): what the mask must select. */
export const WEATHER_ASSISTANT_TEXTS = [
  '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call><|im_end|>',
  'It is 21 °C in Paris.<|im_end|>',
];

/** A service-style chat: two user queries, a tool call with two parallel results, prose and tool call in one turn. */
export const SERVICE_CHAT: ChatMessage[] = [
  { role: 'system', content: 'You help customers of a shop. 店 🛒' },
  { role: 'user', content: 'Where is order 17?' },
  {
    role: 'assistant',
    content: 'Let me look.',
    tool_calls: [
      { type: 'function', function: { name: 'get_order', arguments: { id: 17 } } },
      { type: 'function', function: { name: 'get_shipping', arguments: { order_id: 17, verbose: true } } },
    ],
  },
  { role: 'tool', name: 'get_order', content: '{"status": "shipped"}' },
  { role: 'tool', name: 'get_shipping', content: '{"eta": "2 days"}' },
  { role: 'assistant', content: 'Order 17 shipped and arrives in 2 days.' },
  { role: 'user', content: 'Thanks! Cancel order 18 please.' },
  // Raw policy text holding its own <tool_call> block (tool_calls must not be rendered twice).
  {
    role: 'assistant',
    content: '<tool_call>\n{"name": "cancel_order", "arguments": {"id": 18}}\n</tool_call>',
    tool_calls: [{ type: 'function', function: { name: 'cancel_order', arguments: { id: 18 } } }],
  },
  { role: 'tool', name: 'cancel_order', content: 'cancelled' },
  { role: 'assistant', content: 'Done: order 18 is cancelled.' },
];

export const SERVICE_TOOLS: ToolSpec[] = ['get_order', 'get_shipping', 'cancel_order'].map((name) => ({
  type: 'function',
  function: { name, description: `${name} tool`, parameters: { type: 'object', properties: { id: { type: 'integer' } } } },
}));
