// Copy drills: generic conversations in which the assistant calls an `echo` tool with a string the
// user wrote, in exactly the call format of the function-calling tasks. A model trained from
// scratch (the nano presets have no pretraining) has never copied a string it did not see in
// training, and that is what a test split with unseen argument values asks of it; a task's own SFT
// data has about 8 copied bytes per conversation, too sparse for the copy mechanism to form in a
// few hundred steps. The drills carry no task content: their strings are random letters (never a
// value of any routing pool), their tool and wording belong to no task set, so they cannot leak a
// validation or test value (asserted in copyDrills.test.ts).
import type { ChatMessage, ToolSpec } from '../envs/types';
import { ROUTING_VALUE_POOLS } from '../envs/functionCalling/routingPools';
import { formatToolCalls } from '../tokenizer/toolCalls';
import { Rng } from '../util/rng';
import { emailDrill } from './emailDrills';

export const ECHO_TOOL: ToolSpec = {
  type: 'function',
  function: { name: 'echo', description: 'repeat a text', parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
};

const SYSTEM = 'Call the right tool.';
const WORDINGS = ['echo {x}', 'repeat {x}', '{x} again', 'say {x}', 'copy {x} please', 'echo back {x}'];
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const UPPER = LOWER.toUpperCase();

/** Every value of every routing pool (all splits): a drill string is never one of them. */
const POOL_VALUES = new Set(Object.values(ROUTING_VALUE_POOLS).flat().map((v) => v.toLowerCase()));

/** A random word shaped like an argument value: capitalised or lower-case letters, or an upper-case code. */
function drillWord(rng: Rng): string {
  for (;;) {
    const shape = rng.int(0, 2);
    const n = shape === 2 ? rng.int(2, 5) : rng.int(3, 10);
    const letters = Array.from({ length: n }, () => (shape === 2 ? UPPER : LOWER)[rng.int(0, 25)]).join('');
    const s = shape === 0 ? letters[0].toUpperCase() + letters.slice(1) : letters;
    if (!POOL_VALUES.has(s.toLowerCase())) return s;
  }
}

/** One drill string: half the time one value-shaped word, else 2–6 of them (more copied bytes per drill). */
export function drillString(rng: Rng): string {
  const words = rng.next() < 0.5 ? 1 : rng.int(2, 6);
  return Array.from({ length: words }, () => drillWord(rng)).join(' ');
}

/**
 * `n` drill conversations (system, user, the assistant's echo call), seeded. With `emails` > 0 that
 * share of them are email drills instead (emailDrills.ts), drawn from a stream of their own: the
 * word drills' strings do not depend on it, and `emails` 0 gives exactly the stream it always gave
 * (the bundled copy base's drill record regenerates from it).
 */
export function copyDrills(n: number, seed: number, emails = 0): { messages: ChatMessage[]; tools: ToolSpec[] }[] {
  if (!(emails >= 0 && emails <= 1)) throw new Error(`copy drills: the email share must be in [0, 1]; got ${emails}`);
  const rng = new Rng(seed ^ 0xd211);
  const emailRng = new Rng(seed ^ 0xe3a1);
  return Array.from({ length: n }, () => {
    const x = drillString(rng);
    const wording = rng.pick(WORDINGS);
    if (emails > 0 && emailRng.next() < emails) return emailDrill(emailRng);
    const call = formatToolCalls([{ name: 'echo', arguments: { text: x } }]);
    return {
      messages: [
        { role: 'system', content: SYSTEM },
        { role: 'user', content: wording.replace('{x}', x) },
        { role: 'assistant', content: call },
      ],
      tools: [ECHO_TOOL],
    };
  });
}
