// Email copy drills: the user writes an email address shaped exactly like a service customer's
// (first.last + two digits @ one of the service domains, database.ts) and the assistant looks it up
// with the service's real `find_user_id_by_email` call. Why: after service SFT a `nano-q` copies the
// email's first name and then writes another last name and other digits (README "Multi-turn
// learning"); the word drills of copyDrills.ts are space-separated random letters, so nothing trained
// the copy across the dots, digits and "@" of an address. The names are random and name-shaped
// (randomUsers.ts: never a first or last name of any split's pool) and the wordings belong to no
// split's email answers (userText.ts), so a drill can carry no validation or test customer or phrasing
// (asserted in emailDrills.test.ts).
import { EMAIL_DOMAINS } from '../envs/service/catalog';
import { SERVICE_TOOL_SPECS } from '../envs/service/toolSpecs';
import type { ChatMessage, ToolSpec } from '../envs/types';
import { formatToolCalls } from '../tokenizer/toolCalls';
import type { Rng } from '../util/rng';
import { randomName } from './randomUsers';

const FIND_BY_EMAIL = SERVICE_TOOL_SPECS.find((t) => t.function.name === 'find_user_id_by_email');
if (!FIND_BY_EMAIL) throw new Error('emailDrills: the service tools lost find_user_id_by_email');
export const EMAIL_DRILL_TOOL: ToolSpec = FIND_BY_EMAIL;

const SYSTEM = 'Look up the customer by email.';
/** Drill-only wordings: none is an email answer of the simulated user in any split. */
export const EMAIL_DRILL_WORDINGS = ['email: {x}', 'look up {x}', '{x}', 'find the account of {x}', 'the address is {x}', 'customer {x}, please'];

/** An address shaped like a service customer's: random first.last, two digits, a service domain. */
export function drillEmail(rng: Rng): string {
  return `${randomName(rng)}.${randomName(rng)}${rng.int(10, 99)}@${rng.pick(EMAIL_DOMAINS)}`.toLowerCase();
}

/** One email drill conversation (system, user, the assistant's lookup call). */
export function emailDrill(rng: Rng): { messages: ChatMessage[]; tools: ToolSpec[] } {
  const x = drillEmail(rng);
  return {
    messages: [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: rng.pick(EMAIL_DRILL_WORDINGS).replace('{x}', x) },
      { role: 'assistant', content: formatToolCalls([{ name: EMAIL_DRILL_TOOL.function.name, arguments: { email: x } }]) },
    ],
    tools: [EMAIL_DRILL_TOOL],
  };
}
