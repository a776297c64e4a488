// Service conversations with a fresh customer: a verified expert episode whose user is renamed, in
// every message, to a random name-shaped first and last name (so their email and account id change
// with it). Why: a train database draws its customers from ≈ 13 first and 13 last names
// (catalog.ts), so SFT on it can be fitted by memorising how those names are spelled, and a model
// without pretraining does exactly that: after SFT it writes a train name into the email it looks up
// (README "Multi-turn learning"). With names it has never seen, the only way to the right email is to
// copy it from the user's message — what the validation and test customers ask for.
// The rename is applied to the finished episode, not to the database: the episode was verified
// against its real database, and renaming one customer consistently everywhere (user turns, calls,
// tool outputs, the agent's text) gives the conversation the renamed database would have given. A
// random name is never a name of any split's pool (so no validation or test customer enters the
// training data), asserted in randomUsers.test.ts.
import { FIRST_NAMES, LAST_NAMES } from '../envs/service/catalog';
import type { ServiceTask } from '../envs/service/types';
import type { ChatMessage } from '../tokenizer/chatTypes';
import type { Rng } from '../util/rng';

/** Every first and last name of every split, lower-cased: a random name is never one of them. */
const POOL_NAMES = new Set([...Object.values(FIRST_NAMES), ...Object.values(LAST_NAMES)].flat().map((n) => n.toLowerCase()));

const ONSETS = ['b', 'd', 'f', 'g', 'h', 'j', 'k', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'w', 'z', 'br', 'ch', 'dr', 'kr', 'sh', 'st', 'th', 'tr'];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'ai', 'ea', 'io', 'ou'];
const CODAS = ['', '', '', 'n', 'r', 's', 'l', 'm', 'k', 'th'];

/**
 * A random capitalised name of 2–3 syllables (onset, vowel, optional coda): shaped like the pool's
 * names, so it splits into tokens the way a real name does rather than letter by letter.
 */
export function randomName(rng: Rng): string {
  for (;;) {
    const syllables = rng.int(2, 3);
    let s = '';
    for (let i = 0; i < syllables; i++) s += (i === 0 || rng.next() < 0.8 ? rng.pick(ONSETS) : '') + rng.pick(VOWELS) + (i === syllables - 1 ? rng.pick(CODAS) : '');
    if (s.length >= 3 && s.length <= 10 && !POOL_NAMES.has(s)) return s[0].toUpperCase() + s.slice(1);
  }
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Replaces whole-word occurrences (no letter right before or after) of each key of `swap`, longest key first. */
function swapWords(text: string, swap: ReadonlyMap<string, string>): string {
  const keys = [...swap.keys()].sort((a, b) => b.length - a.length);
  if (keys.length === 0) return text;
  const re = new RegExp(`(?<![A-Za-z])(?:${keys.map(escape).join('|')})(?![A-Za-z])`, 'g');
  return text.replace(re, (m) => swap.get(m)!);
}

/** What a rename did: the new identity, or why the conversation was left as it was. */
export type RenameResult =
  | { renamed: true; messages: ChatMessage[]; firstName: string; lastName: string; email: string; userId: string }
  | { renamed: false; messages: ChatMessage[]; reason: string };

/**
 * `messages` of an episode of `task` with its customer renamed to random first and last names: the
 * email and account id (exact strings), then the capitalised names as whole words, in
 * every message's text and every call's arguments. Left unchanged (with the reason) when a name
 * also occurs in the system prompt — a name that is an ordinary word there ("Grace", "Young") would
 * be renamed in text that is not about the customer.
 */
export function withRandomUser(task: ServiceTask, messages: readonly ChatMessage[], rng: Rng): RenameResult {
  const { firstName, lastName, email, userId } = task.user;
  const swap = new Map<string, string>();
  const first = randomName(rng);
  let last = randomName(rng);
  while (last === first) last = randomName(rng);
  const lower = (s: string) => s.toLowerCase();
  // the email and id are built from the names (database.ts): their other parts (digits, domain) stay
  const newEmail = email.replace(new RegExp(`^${escape(lower(firstName))}\\.${escape(lower(lastName))}`), `${lower(first)}.${lower(last)}`);
  const newId = userId.replace(new RegExp(`^${escape(lower(firstName))}_${escape(lower(lastName))}`), `${lower(first)}_${lower(last)}`);
  if (newEmail === email || newId === userId) return { renamed: false, messages: [...messages], reason: `the email ${email} or account id ${userId} is not built from the name ${firstName} ${lastName}` };
  // lower-case names only inside the email and id: as words they can be something else ("brown" is a product colour)
  swap.set(email, newEmail).set(userId, newId).set(firstName, first).set(lastName, last);
  const system = messages.filter((m) => m.role === 'system').map((m) => m.content).join('\n');
  if (swapWords(system, swap) !== system) return { renamed: false, messages: [...messages], reason: `the name ${firstName} ${lastName} occurs in the system prompt` };
  const out = messages.map((m): ChatMessage => ({
    ...m,
    content: swapWords(m.content, swap),
    ...(m.tool_calls ? { tool_calls: JSON.parse(swapWords(JSON.stringify(m.tool_calls), swap)) as ChatMessage['tool_calls'] } : {}),
  }));
  return { renamed: true, messages: out, firstName: first, lastName: last, email: newEmail, userId: newId };
}
