// SFT documents for the pipeline's sft stage: verified synthetic trajectories of a task mix (the
// family experts replayed against the real environments on the TRAIN split, kept only at full
// reward: data/synth.ts), or conversations from an HF chat JSONL file — tokenised turn by turn with
// the same renderer the rollouts use, loss on assistant tokens only. Documents longer than the
// context are dropped and counted, never cut (a cut conversation would teach a truncated answer).
import { DEFAULT_ATTEMPTS_PER_CONVERSATION, rejectionReason } from '../data/synth';
import { withRandomValues } from '../data/randomValues';
import { withWrappedRequest } from '../data/requestWrappers';
import { withEditedRequest } from '../data/requestEdits';
import { withFramedRequest } from '../data/requestFrames';
import { withRandomUser } from '../data/randomUsers';
import type { ServiceTask } from '../envs/service/types';
import { demonstratedPhrasings } from '../envs/functionCalling/routingTemplates';
import { ROUTING_LEVELS } from '../envs/functionCalling/routingTask';
import type { FunctionCallingTask } from '../envs/functionCalling/types';
import { Rng } from '../util/rng';
import { runEpisode } from '../eval/rollout';
import { mixSeeds } from '../util/seeds';
import type { ChatConversation } from '../data/chatJsonl';
import type { EncodedDoc } from '../data/packing';
import type { ChatMessage, EnvFamily, EpisodeLimits, ToolSpec } from '../envs/types';
import { encodeConversation, type Tokenizer } from '../tokenizer';
import type { PromptRenderer } from '../train/rl/rollout';

export interface SftDataReport {
  /** Conversations encoded and kept. */
  docs: number;
  /** Conversations dropped because they exceed the context (tokens > maxTokens). */
  tooLong: number;
  /** Copy drills mixed in (data/copyDrills.ts). */
  drills?: number;
  /** Function-calling examples whose argument values were replaced by random ones (data/randomValues.ts). */
  randomValues?: number;
  /** Function-calling examples whose request was wrapped in small talk (data/requestWrappers.ts). */
  wrappedRequests?: number;
  /** Function-calling examples whose request got word edits (data/requestEdits.ts). */
  editedRequests?: number;
  /** How many function-calling examples had their request rebuilt from a frame and a cue (when a share was asked for). */
  framedRequests?: number;
  /** Service conversations whose customer was renamed to random names (data/randomUsers.ts; when a share was asked for). */
  randomUsers?: number;
  /** Routing tasks passed over because a request phrasing is not among the demonstrated ones (when `phrasings` was asked for). */
  undemonstrated?: number;
  /** Synthetic data: expert episodes run, and those the verification rejected. */
  generated?: number;
  rejected?: number;
  /** Tokens per kept conversation (mean, max) and assistant (trained) tokens in all. */
  meanTokens: number;
  maxTokens: number;
  assistantTokens: number;
}

/** Tokenises conversations (HF chat form) into SFT documents of at most `maxTokens` tokens. */
export function encodeSftConversations(conversations: readonly { messages: readonly ChatMessage[]; tools: readonly ToolSpec[] }[], tok: Tokenizer, render: PromptRenderer, maxTokens: number): { docs: EncodedDoc[]; report: SftDataReport } {
  const docs: EncodedDoc[] = [];
  let tooLong = 0;
  let total = 0;
  let longest = 0;
  let assistant = 0;
  for (const c of conversations) {
    // messages after the last assistant turn (the final tool result) train nothing: a rollout never tokenises them either
    const last = c.messages.findLastIndex((m) => m.role === 'assistant');
    const shown = render(c.messages.slice(0, last + 1), c.tools);
    const seq = encodeConversation(tok, shown.messages, shown.tools);
    if (seq.ids.length > maxTokens) {
      tooLong++;
      continue;
    }
    docs.push({ ids: seq.ids, mask: seq.assistantMask });
    total += seq.ids.length;
    longest = Math.max(longest, seq.ids.length);
    for (const m of seq.assistantMask) assistant += m;
  }
  return { docs, report: { docs: docs.length, tooLong, meanTokens: docs.length ? total / docs.length : 0, maxTokens: longest, assistantTokens: assistant } };
}

/**
 * `examples` verified expert conversations of `family` (a task mix is one family: taskSets.mixFamily)
 * from train tasks 0, 1, … of the seed's stream, encoded. The episodes' own messages are encoded (the
 * expert's raw text, as a rollout would hold it), not the HF export form, whose template re-renders
 * calls with other spacing. Throws when the experts cannot produce enough (a broken family),
 * naming how many were kept and why the rest were rejected.
 */
export async function syntheticSftDocs(
  family: EnvFamily, examples: number, seed: number, tok: Tokenizer, render: PromptRenderer, maxTokens: number, limits?: Partial<EpisodeLimits>,
  /**
   * Shares of function-calling tasks whose argument values are random value-shaped strings (data/randomValues.ts), whose request is wrapped in small talk (data/requestWrappers.ts), whose request gets word edits (data/requestEdits.ts), whose request is rebuilt from a generic frame and a cue of its tool (data/requestFrames.ts);
   * `randomUsers`: share of service conversations whose customer is renamed to random names (data/randomUsers.ts);
   * `phrasings`: keep only routing tasks whose request phrasings are all among the first K train phrasings of their tool (routingTemplates.demonstratedPhrasings), checked before any augmentation.
   */
  augment: { randomValues?: number; wrappedRequests?: number; editedRequests?: number; framedRequests?: number; randomUsers?: number; phrasings?: number } = {},
): Promise<{ docs: EncodedDoc[]; report: SftDataReport }> {
  const kept: { messages: ChatMessage[]; tools: ToolSpec[] }[] = [];
  const rejectedBy: Record<string, number> = {};
  const maxAttempts = examples * DEFAULT_ATTEMPTS_PER_CONVERSATION;
  let generated = 0;
  let randomised = 0;
  let wrapped = 0;
  let edited = 0;
  let framed = 0;
  let renamed = 0;
  const { randomValues = 0, wrappedRequests = 0, editedRequests = 0, framedRequests = 0, randomUsers = 0 } = augment;
  const demonstrated = augment.phrasings === undefined ? undefined : demonstratedPhrasings(augment.phrasings);
  let undemonstrated = 0;
  // tasks passed over for their phrasing are not attempts: only expert episodes count against the bound
  for (let i = 0; kept.length < examples && i - undemonstrated < maxAttempts; i++) {
    let task = family.generateTask(seed, i, 'train');
    if (demonstrated) {
      const shown = task.family === 'function-calling' ? (task as FunctionCallingTask).phrasings : undefined;
      if (!shown) throw new Error(`SFT data: phrasings ${augment.phrasings} keeps requests of the first ${augment.phrasings} train phrasings per tool, but task ${task.id} has no routing phrasing: use it with routing task sets only (${ROUTING_LEVELS.join(', ')})`);
      if (!shown.every((p) => demonstrated.has(p))) {
        undemonstrated++;
        continue;
      }
    }
    if ((randomValues > 0 || wrappedRequests > 0 || editedRequests > 0 || framedRequests > 0) && task.family === 'function-calling') {
      const rng = new Rng(mixSeeds(seed, 0x7a1e, i));
      if (rng.next() < randomValues) {
        const swapped = withRandomValues(task as FunctionCallingTask, rng);
        if (swapped !== task) randomised++;
        task = swapped;
      }
      // its own stream, so adding frames leaves which examples are randomised, wrapped or edited as it was;
      // framed before wrapping, so a framed request can be wrapped too
      if (framedRequests > 0 && new Rng(mixSeeds(seed, 0xf4a3, i)).next() < framedRequests) {
        const f = withFramedRequest(task as FunctionCallingTask, new Rng(mixSeeds(seed, 0xf4a4, i)));
        if (f !== task) framed++;
        task = f;
      }
      if (rng.next() < wrappedRequests) {
        const w = withWrappedRequest(task as FunctionCallingTask, rng);
        if (w !== task) wrapped++;
        task = w;
      }
      // its own stream, so adding edits leaves which examples are randomised or wrapped as it was
      if (editedRequests > 0 && new Rng(mixSeeds(seed, 0xed17, i)).next() < editedRequests) {
        const e = withEditedRequest(task as FunctionCallingTask, new Rng(mixSeeds(seed, 0xed18, i)));
        if (e !== task) edited++;
        task = e;
      }
    }
    const expertSeed = mixSeeds(seed, 0x5f7d, i);
    // the rollouts' limits (e.g. maxTurns, which the coding prompt states), so SFT prompts are the ones RL and evaluation show
    const episode = await runEpisode(family, task, family.expertPolicy(task, expertSeed), { seed: expertSeed, limits });
    generated++;
    const reason = rejectionReason(episode);
    if (reason === null) {
      let messages = episode.messages;
      // its own stream, so asking for renamed customers leaves every other choice as it was
      if (randomUsers > 0 && task.family === 'service' && new Rng(mixSeeds(seed, 0x5e7a, i)).next() < randomUsers) {
        const r = withRandomUser(task as ServiceTask, messages, new Rng(mixSeeds(seed, 0x5e7b, i)));
        if (r.renamed) renamed++;
        messages = r.messages;
      }
      kept.push({ messages, tools: episode.tools });
    } else rejectedBy[reason] = (rejectedBy[reason] ?? 0) + 1;
  }
  if (kept.length < examples) {
    throw new Error(`SFT data: the experts produced ${kept.length} of ${examples} verified conversations in ${generated} episodes (rejected: ${JSON.stringify(rejectedBy)})`);
  }
  const encoded = encodeSftConversations(kept, tok, render, maxTokens);
  return { docs: encoded.docs, report: { ...encoded.report, generated, rejected: generated - kept.length, ...(demonstrated ? { undemonstrated } : {}), ...(randomValues > 0 ? { randomValues: randomised } : {}), ...(wrappedRequests > 0 ? { wrappedRequests: wrapped } : {}), ...(editedRequests > 0 ? { editedRequests: edited } : {}), ...(framedRequests > 0 ? { framedRequests: framed } : {}), ...(randomUsers > 0 ? { randomUsers: renamed } : {}) } };
}

/** HF chat JSONL conversations (e.g. `npm run synth` output) as SFT input. */
export function conversationMessages(c: ChatConversation): { messages: ChatMessage[]; tools: ToolSpec[] } {
  return { messages: c.messages, tools: c.tools };
}
