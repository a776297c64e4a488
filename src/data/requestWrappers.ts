// Function-calling requests inside a few words of small talk: "hey, {request}", "{request} thanks".
// Why: the routing train split has 8 phrasings per tool, and a small model trained on them places
// the argument by its position in phrasings it has seen — on an unseen phrasing it copies the
// wrong span ("what is the meaning of journey?" → city "meaning"). Wrapping moves the value to new
// offsets with the same phrasing inside, so where the value sits stops being a cue; which word is
// the value must come from the words themselves. The wrappers are train-only text: none is a
// validation or test phrasing, and a wrapped train phrasing never equals one
// (requestWrappers.test.ts, and the split-disjointness test on the SFT stream).
import type { FunctionCallingTask } from '../envs/functionCalling/types';
import type { Rng } from '../util/rng';

/** `{r}` is the task's request, unchanged. */
export const REQUEST_WRAPPERS: readonly string[] = [
  'hey, {r}', 'hello! {r}', 'quick one: {r}', 'ok so {r}', 'hi there, {r}', 'question for you: {r}', 'sorry to bother you, {r}',
  '{r} thanks', '{r} cheers', '{r} (asap)', '{r} - thank you!', '{r} if you can', 'um, {r} thanks', 'hey again. {r} ty',
];

/** `task` with its first user message wrapped in one of REQUEST_WRAPPERS (the expected calls are unchanged). */
export function withWrappedRequest(task: FunctionCallingTask, rng: Rng): FunctionCallingTask {
  const at = task.question.findIndex((m) => m.role === 'user' && typeof m.content === 'string');
  if (at < 0) return task;
  const wrapper = rng.pick(REQUEST_WRAPPERS);
  const question = task.question.map((m, i) => (i === at ? { ...m, content: wrapper.replace('{r}', m.content as string) } : m));
  return { ...task, id: `${task.id}-wrapped`, question };
}
