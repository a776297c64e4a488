// The expert policy for SFT data: it reads the task's hidden reference solution. Seeded: in about
// 30% of episodes it first tries the task's plausible buggy attempt with run_tests, reads the
// failure, explains it and submits the fix; otherwise it checks the reference once and submits (if
// the sandbox stopped that check, it says so and runs it once more rather than claim a pass).
// It decides from the conversation (how many assistant turns so far), so it is a pure Policy.
import { Rng } from '../../util/rng';
import { hashString } from '../../util/seeds';
import { formatToolCalls } from '../../tokenizer/toolCalls';
import type { ChatMessage, Policy } from '../types';
import { RUN_TESTS, SUBMIT } from './prompts';
import type { CodingTask } from './types';

/** Share of expert episodes that start with the buggy attempt. */
export const BUGGY_FIRST_PROBABILITY = 0.3;

function turn(prose: string, name: string, code: string): string {
  return `${prose}\n${formatToolCalls([{ name, arguments: { code } }])}`;
}

/** Runs of the same (reference) code the expert makes after a run the sandbox stopped. */
const MAX_RERUNS = 1;

/** The last tool result, if any. */
function lastToolResult(messages: ChatMessage[]): string | undefined {
  return [...messages].reverse().find((m) => m.role === 'tool')?.content;
}

/** The first failing line of the last run_tests result, if any. */
function firstFailure(messages: ChatMessage[]): string | undefined {
  const last = lastToolResult(messages);
  if (last === undefined) return undefined;
  if (last.startsWith('Your code did not load')) return last.split('\n')[0];
  return last.split('\n').find((l) => l.startsWith('FAIL '))?.slice('FAIL '.length);
}

/** Whether codingExpert(task, seed) first runs the buggy attempt (its plan, fixed before any turn). */
export function startsWithBuggyAttempt(task: CodingTask, seed: number): boolean {
  return new Rng((seed ^ hashString(task.id)) >>> 0).next() < BUGGY_FIRST_PROBABILITY;
}

/** An expert for `task`; `seed` decides whether it shows a debugging detour first. */
export function codingExpert(task: CodingTask, seed: number): Policy {
  const buggyFirst = startsWithBuggyAttempt(task, seed);
  return async (messages) => {
    const turns = messages.filter((m) => m.role === 'assistant').length;
    if (turns === 0) {
      return buggyFirst
        ? turn(`I'll start with a direct implementation of \`${task.entry}\` and check it on the examples.`, RUN_TESTS, task.buggySolution)
        : turn(`Here is my implementation of \`${task.entry}\`; let me check it on the examples first.`, RUN_TESTS, task.solution);
    }
    if (buggyFirst && turns === 1) {
      const failure = firstFailure(messages);
      const seen = failure !== undefined ? `The examples show a problem: ${failure}.` : 'The examples pass, but looking again there is a problem.';
      return turn(`${seen} The cause: ${task.bugNote}. Here is the corrected version.`, SUBMIT, task.solution);
    }
    const run = lastToolResult(messages);
    if (run !== undefined && !run.startsWith('All ')) {
      // The reference fails a run only when the sandbox stops it (a loaded machine can hit the time
      // limit): say what the run showed and run it again, so no SFT turn claims a pass it did not see.
      const shown = run.split('\n')[0];
      if (turns < 1 + MAX_RERUNS) return turn(`That run did not finish cleanly (${shown}); I'll run the same code again.`, RUN_TESTS, task.solution);
      return turn(`The examples still did not run to the end (${shown}); this is the version I checked, so I will submit it.`, SUBMIT, task.solution);
    }
    return turn('All examples pass, so I will submit this version.', SUBMIT, task.solution);
  };
}
