// The split audit per family: builds the training streams (train tasks as the agent sees them,
// and the SFT data of src/data: expert trajectories, routing chats) and the held-out content
// (validation and test prompts, values, phrasings, tools, templates), and counts overlaps with
// leakCheck.ts. Held-out content is both DECLARED (the pools' validation/test parts) and
// OBSERVED (what validation/test tasks actually contain), so a generator that ignores its split
// shows up even where its pools are cut correctly.
import { withRandomValues } from '../data/randomValues';
import { withRandomValueTasks } from '../data/randomValueTasks';
import { withWrappedRequest } from '../data/requestWrappers';
import { withEditedRequest } from '../data/requestEdits';
import { withFramedRequest } from '../data/requestFrames';
import { CODING_LEVELS, codingLevelFamily, LEVEL_TEMPLATE_SPLITS } from '../envs/coding/index';
import { catalogueEntityStrings } from '../envs/functionCalling/catalogue/inventory';
import { phrasingListsUsed } from '../envs/functionCalling/catalogue/pools';
import { UNSEEN_TOOL_NAMES } from '../envs/functionCalling/catalogue/toolSplits';
import { canonicalCall } from '../envs/functionCalling/expertPolicy';
import { functionCallingFamily, unseenToolsFamily } from '../envs/functionCalling/family';
import { CONNECTORS, OPENERS } from '../envs/functionCalling/generateTask';
import { ROUTING_VALUES } from '../envs/functionCalling/routingPools';
import { ROUTING_LEVEL_TOOLS, type RoutingLevel } from '../envs/functionCalling/routingTask';
import { ROUTING_JOINERS, ROUTING_TEMPLATES } from '../envs/functionCalling/routingTemplates';
import type { FunctionCallingTask } from '../envs/functionCalling/types';
import { FIRST_NAMES, LAST_NAMES, PRODUCT_TEMPLATES, STREETS, CITIES as SERVICE_CITIES } from '../envs/service/catalog';
import { seedDatabase } from '../envs/service/database';
import { SERVICE_LEVELS, serviceLevelFamily } from '../envs/service/index';
import type { ServiceTask } from '../envs/service/types';
import { userPhrasingInventory } from '../envs/service/userText';
import type { Split, SplitLists } from '../envs/splits';
import type { ChatMessage, EnvFamily, JsonSchema, TaskBase } from '../envs/types';
import { routingToolChats } from '../data/toolChats';
import { synthesizeFamily } from '../data/synth';
import type { ChatConversation } from '../data/chatJsonl';
import { countOverlap, type HeldOutSet, type OverlapRow, type TrainStream } from './leakCheck';
import { Rng } from '../util/rng';

/** Sizes of an audit (tasks per stream); larger finds rarer leaks. */
export interface AuditSizes {
  seed: number;
  /** Train tasks generated per family. */
  train: number;
  /** Validation and test tasks generated each, for the observed held-out content. */
  heldOut: number;
  /** Expert SFT conversations synthesised (src/data/synth.ts), per family. */
  sft: number;
}

const HELD: readonly Split[] = ['validation', 'test'];

function heldOutOf<T>(lists: SplitLists<T>): T[] {
  return [...lists.validation, ...lists.test];
}

function tasksOf<T extends TaskBase>(family: EnvFamily<T>, seed: number, split: Split, n: number): T[] {
  return Array.from({ length: n }, (_, i) => family.generateTask(seed, i, split));
}

/** The text of every message of a conversation, one entry per message (tool calls as JSON). */
function conversationTexts(c: { messages: readonly ChatMessage[] }): string[] {
  return c.messages.map((m) => (m.tool_calls ? `${m.content}\n${JSON.stringify(m.tool_calls)}` : m.content));
}

function userTexts(messages: readonly ChatMessage[]): string[] {
  return messages.filter((m) => m.role === 'user').map((m) => m.content);
}

/** Arguments every split uses alike by design: a constant of the generator, not a sampled value. */
const SHARED_ARGUMENTS = new Set(['translate_text.source_language=English']);

/** "function.param=value" for every string argument value of the expected calls (enum parameters and SHARED_ARGUMENTS left out). */
function argumentKeys(task: FunctionCallingTask): string[] {
  const out: string[] = [];
  for (const expected of task.groundTruth) {
    const call = canonicalCall(expected, task.tools);
    const props = task.tools.find((t) => t.function.name === call.name)?.function.parameters.properties ?? {};
    for (const [param, value] of Object.entries(call.arguments)) {
      const schema: JsonSchema | undefined = props[param];
      if (schema?.enum !== undefined || schema?.items?.enum !== undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) if (typeof v === 'string' && !SHARED_ARGUMENTS.has(`${call.name}.${param}=${v}`)) out.push(`${call.name}.${param}=${v}`);
    }
  }
  return out;
}

function rows(streams: readonly TrainStream[], sets: readonly HeldOutSet[], pairs: readonly [number, number][]): OverlapRow[] {
  return pairs.map(([s, h]) => countOverlap(sets[h], streams[s]));
}

/** Routing level `level`: prompts, values and phrasings of validation/test vs train requests (and the SFT chats of src/data for route4). */
export async function auditRouting(level: RoutingLevel, family: EnvFamily<FunctionCallingTask>, n: AuditSizes): Promise<OverlapRow[]> {
  const train = tasksOf(family, n.seed, 'train', n.train);
  const held = HELD.flatMap((split) => tasksOf(family, n.seed, split, n.heldOut));
  // the SFT augmentations (random argument values, requests wrapped in small talk) on the same train tasks
  const rng = new Rng(n.seed ^ 0x5a17);
  const augmented = train.map((t) => withWrappedRequest(withRandomValues(t, rng), rng));
  // word edits on the train values as they are (edits never touch values; their phrasings are what could leak)
  const edited = train.map((t) => withEditedRequest(t, rng));
  // requests rebuilt from a frame and a cue word (the values kept; the phrasing is new)
  const framed = train.map((t) => withFramedRequest(t, rng));
  const streams: TrainStream[] = [
    { name: `${level} train requests`, texts: train.flatMap((t) => userTexts(t.question)) },
    { name: `${level} SFT-augmented train requests (random values, wrapped)`, texts: augmented.flatMap((t) => userTexts(t.question)) },
    { name: `${level} SFT-edited train requests (word edits)`, texts: edited.flatMap((t) => userTexts(t.question)) },
    { name: `${level} SFT-framed train requests (frame + cue)`, texts: framed.flatMap((t) => userTexts(t.question)) },
    // a GRPO stage's randomValues: the train stream as its loop draws it (data/randomValueTasks.ts)
    { name: `${level} GRPO random-value train tasks`, texts: tasksOf(withRandomValueTasks(family, 1), n.seed, 'train', n.train).flatMap((t) => userTexts(t.question)) },
  ];
  if (level === 'route4' && n.sft > 0) {
    const chats = await routingToolChats(n.sft, n.seed, 'train');
    streams.push({ name: 'SFT routing chats (data/toolChats)', texts: chats.flatMap(conversationTexts) });
  }
  const tools = ROUTING_LEVEL_TOOLS[level];
  const types = [...new Set(tools.map((t) => t.valueType))];
  const sets: HeldOutSet[] = [
    { name: `${level} val+test prompts`, items: held.flatMap((t) => userTexts(t.question)), match: 'exact' },
    { name: `${level} val+test values`, items: [...types.flatMap((type) => heldOutOf(ROUTING_VALUES[type])), ...held.flatMap((t) => argumentKeys(t).map((k) => k.slice(k.indexOf('=') + 1)))], match: 'word' },
    // routing values are single words: a placeholder spans ≤ 3 words, so it cannot swallow a joined second request
    { name: `${level} val+test phrasings`, items: [...tools.flatMap((t) => heldOutOf(ROUTING_TEMPLATES[t.tool.function.name])), ...(level === 'route8-multi' ? heldOutOf(ROUTING_JOINERS) : [])], match: 'template', maxWordsPerPlaceholder: 3 },
  ];
  const pairs: [number, number][] = streams.flatMap((_, s) => sets.map((__, h): [number, number] => [s, h]));
  // a whole SFT conversation is no prompt: exact prompt matching applies to requests only
  return rows(streams, sets, pairs.filter(([s, h]) => !(streams[s].name.startsWith('SFT routing chats') && h === 0)));
}

/** The BFCL-style mix: prompts, argument values, entity values, phrasings and unseen tools vs train tasks and expert SFT data. */
export async function auditFunctionCalling(n: AuditSizes): Promise<OverlapRow[]> {
  const train = tasksOf(functionCallingFamily, n.seed, 'train', n.train);
  const held = HELD.flatMap((split) => tasksOf(functionCallingFamily, n.seed, split, n.heldOut));
  const unseen = HELD.flatMap((split) => tasksOf(unseenToolsFamily, n.seed, split, n.heldOut));
  const sft = await synthesizeFamily(functionCallingFamily, { n: n.sft, seed: n.seed });
  const streams: TrainStream[] = [
    { name: 'bfcl train requests', texts: train.flatMap((t) => userTexts(t.question)) },
    { name: 'bfcl train arguments', texts: train.flatMap(argumentKeys) },
    { name: 'bfcl train tools offered', texts: train.flatMap((t) => t.tools.map((x) => x.function.name)) },
    { name: 'SFT bfcl expert chats (data/synth)', texts: sft.items.flatMap((i) => conversationTexts(i.conversation)) },
    { name: 'SFT bfcl tools offered', texts: sft.items.flatMap((i) => i.conversation.tools.map((x) => x.function.name)) },
  ];
  const entities = Object.values(catalogueEntityStrings()).flatMap(heldOutOf);
  const phrasings = phrasingListsUsed().flatMap((list) => list.slice(-2)); // the last two of a list: validation, test (pools.ts)
  const unseenNames = heldOutOf({ train: [], ...UNSEEN_TOOL_NAMES });
  const sets: HeldOutSet[] = [
    { name: 'bfcl val+test prompts', items: held.flatMap((t) => userTexts(t.question)), match: 'exact' },
    { name: 'bfcl val+test argument values', items: [...held, ...unseen].flatMap(argumentKeys), match: 'exact' },
    { name: 'bfcl val+test entity values', items: entities, match: 'word' },
    { name: 'bfcl val+test phrasings', items: [...phrasings, ...heldOutOf(OPENERS), ...heldOutOf(CONNECTORS)], match: 'template' },
    { name: 'unseen tools (val+test)', items: unseenNames, match: 'exact' },
    { name: 'unseen tool names in text', items: unseenNames, match: 'word' },
  ];
  return rows(streams, sets, [[0, 0], [0, 2], [0, 3], [1, 1], [2, 4], [3, 2], [3, 3], [3, 5], [4, 4]]);
}

/** Users, orders, products and ids of a task's database, as strings. */
function databaseEntities(task: ServiceTask): string[] {
  const db = seedDatabase(task.dbSeed);
  const out: string[] = [];
  for (const u of Object.values(db.users)) out.push(u.user_id, u.email, u.name.first_name, u.name.last_name, u.address.address1, ...Object.keys(u.payment_methods));
  for (const o of Object.values(db.orders)) out.push(o.order_id);
  for (const p of Object.values(db.products)) out.push(p.product_id, p.name, ...Object.keys(p.variants));
  return out;
}

/**
 * Service, every curriculum level together (they share the per-split pools, so a level's test content
 * must not be in ANY level's training data): database entities and the simulated user's phrasings of
 * validation/test vs train databases and expert SFT conversations of all levels.
 */
export async function auditService(n: AuditSizes): Promise<OverlapRow[]> {
  const families = SERVICE_LEVELS.map(serviceLevelFamily);
  const train = families.flatMap((f) => tasksOf(f, n.seed, 'train', n.train));
  const held = families.flatMap((f) => HELD.flatMap((split) => tasksOf(f, n.seed, split, n.heldOut)));
  const sft = (await Promise.all(families.map((f) => synthesizeFamily(f, { n: n.sft, seed: n.seed })))).flatMap((r) => r.items);
  const sftMessages = (pick: (c: ChatConversation) => string[]) => sft.flatMap((i) => pick(i.conversation));
  const streams: TrainStream[] = [
    { name: `service train databases (${SERVICE_LEVELS.join(', ')})`, texts: train.flatMap(databaseEntities) },
    { name: 'SFT service expert chats (data/synth)', texts: sftMessages(conversationTexts) },
    { name: 'SFT service user messages', texts: sftMessages((c) => userTexts(c.messages)) },
  ];
  const phrasings = Object.values(userPhrasingInventory()).flatMap(heldOutOf);
  const declared = [
    ...heldOutOf(FIRST_NAMES), ...heldOutOf(LAST_NAMES), ...heldOutOf(STREETS), ...heldOutOf(SERVICE_CITIES).map((c) => c.city), ...heldOutOf(PRODUCT_TEMPLATES).map((p) => p.name),
  ];
  const observed = held.flatMap(databaseEntities);
  const sets: HeldOutSet[] = [
    { name: 'service val+test db entities', items: observed, match: 'exact' },
    { name: 'service val+test names, streets, cities, products', items: declared, match: 'word' },
    { name: 'service val+test ids and emails', items: observed.filter((e) => /^\S*(\d|@)\S*$/.test(e)), match: 'word' },
    { name: 'service val+test user phrasings', items: phrasings, match: 'template' },
  ];
  return rows(streams, sets, [[0, 0], [1, 1], [1, 2], [2, 3]]);
}

/**
 * Coding, every curriculum level together: the held-out templates (declared and observed) and problem
 * statements of all levels vs the train tasks and expert SFT conversations of all levels.
 */
export async function auditCoding(n: AuditSizes): Promise<OverlapRow[]> {
  const families = CODING_LEVELS.map(codingLevelFamily);
  const train = families.flatMap((f) => tasksOf(f, n.seed, 'train', n.train));
  const held = families.flatMap((f) => HELD.flatMap((split) => tasksOf(f, n.seed, split, n.heldOut)));
  const sft = (await Promise.all(families.map((f) => synthesizeFamily(f, { n: n.sft, seed: n.seed })))).flatMap((r) => r.items);
  const streams: TrainStream[] = [
    { name: `coding train templates (${CODING_LEVELS.join(', ')})`, texts: train.map((t) => t.template) },
    { name: 'coding train statements', texts: train.map((t) => t.statement) },
    { name: 'SFT coding templates (data/synth)', texts: sft.map((i) => i.taskId.split('/').pop() ?? '') },
  ];
  const declared = CODING_LEVELS.flatMap((l) => heldOutOf(LEVEL_TEMPLATE_SPLITS[l]).map((t) => t.id));
  const sets: HeldOutSet[] = [
    { name: 'coding val+test templates', items: [...declared, ...held.map((t) => t.template)], match: 'exact' },
    { name: 'coding val+test statements', items: held.map((t) => t.statement), match: 'exact' },
  ];
  return rows(streams, sets, [[0, 0], [1, 1], [2, 0]]);
}
