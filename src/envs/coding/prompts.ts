// Everything the coding agent reads: the system prompt, the task message, the two tool specs and
// the text of tool results. Kept apart from the episode logic so wording changes touch one file.
import type { ToolSpec } from '../types';
import type { SandboxLimits, SandboxResult } from './sandbox/types';
import type { CodingTask } from './types';

export const RUN_TESTS = 'run_tests';
export const SUBMIT = 'submit';

export const CODING_TOOLS: ToolSpec[] = [
  {
    type: 'function',
    function: {
      name: RUN_TESTS,
      description: 'Run JavaScript code against the public examples; reports every failing example (expected vs got, thrown error, time-out) and console output. Does not end the episode.',
      parameters: {
        type: 'object',
        properties: { code: { type: 'string', description: 'A plain JavaScript script that defines the requested top-level function.' } },
        required: ['code'],
        additionalProperties: false,
      },
    },
  },
  {
    type: 'function',
    function: {
      name: SUBMIT,
      description: 'Submit the final code. It is graded on hidden tests and the episode ends.',
      parameters: {
        type: 'object',
        properties: { code: { type: 'string', description: 'The final JavaScript script defining the requested top-level function.' } },
        required: ['code'],
        additionalProperties: false,
      },
    },
  },
];

/**
 * System message: role, tools, rules and limits. The same for every task of a run (the function's
 * name is in the task message), so SFT rows and GRPO groups hold it once for many conversations.
 */
export function systemPrompt(sandbox: SandboxLimits, maxTurns: number, maxCodeChars: number): string {
  return [
    'You are a careful JavaScript programmer. Solve the task by writing a plain JavaScript (ES2022) script',
    'that defines the requested top-level function (the name in the signature).',
    '',
    'Tools:',
    `- ${RUN_TESTS}(code): runs your code on the public examples and tells you which fail and why.`,
    `- ${SUBMIT}(code): submits your final code; it is graded on hidden tests and the episode ends.`,
    '',
    'Rules: no import, export or require; no network, files or timers. Return plain JSON data',
    '(numbers, strings, booleans, null, arrays, plain objects), do not print it. Each run may take at most',
    `${sandbox.timeoutMs} ms and ${sandbox.memoryMb} MB; code may be at most ${maxCodeChars} characters.`,
    `You have at most ${maxTurns} turns. Call exactly one tool per turn, as`,
    `<tool_call>{"name": "${RUN_TESTS}", "arguments": {"code": "..."}}</tool_call>.`,
  ].join('\n');
}

/** First user message: statement, signature and the public examples. */
export function taskMessage(task: CodingTask): string {
  const examples = task.publicTests.map((t) => `${task.entry}(${t.args.map((a) => JSON.stringify(a)).join(', ')}) → ${JSON.stringify(t.expected)}`);
  return [task.statement, '', `Signature: ${task.signature}`, '', 'Examples:', ...examples].join('\n');
}

function outputBlock(result: SandboxResult): string[] {
  if (result.output === '') return [];
  return ['', `Console output${result.outputTruncated ? ' (cut at the output limit)' : ''}:`, result.output.trimEnd()];
}

/** Tool result of run_tests: a summary line, then one line per failing example. */
export function runTestsObservation(result: SandboxResult): string {
  if (result.status === 'crashed') return `Error: the sandbox failed (${result.error ?? 'unknown error'}); nothing was tested. Try again.`;
  if (result.compileError !== undefined) {
    return [`Your code did not load: ${result.compileError}`, 'No examples were run.', ...outputBlock(result)].join('\n');
  }
  const total = result.tests.length;
  const head = result.passed === total ? `All ${total} public examples passed.` : `${result.passed}/${total} public examples passed.`;
  // only the failures: a passing example repeats what the task message shows (~100 tokens per run)
  const lines = result.tests.filter((t) => t.status !== 'passed').map((t) => `FAIL ${t.message}`);
  return [head, ...lines, ...outputBlock(result)].join('\n');
}

/** Tool result of submit: the hidden-test count only (the hidden tests stay hidden). */
export function submitObservation(result: SandboxResult): string {
  if (result.status === 'crashed') return `Submitted, but the sandbox failed (${result.error ?? 'unknown error'}); the submission could not be graded.`;
  if (result.compileError !== undefined) return `Submitted. The code did not load (${result.compileError}); 0/${result.tests.length} hidden tests passed. The episode is over.`;
  const extra = result.status === 'timeout' ? ' (the time limit was hit)' : result.status === 'memory-exceeded' ? ' (the memory limit was hit)' : '';
  return `Submitted. ${result.passed}/${result.tests.length} hidden tests passed${extra}. The episode is over.`;
}
