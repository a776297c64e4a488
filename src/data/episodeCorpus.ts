// Episodes of the task families as the model sees them, for the trimmed vocabulary (npm run
// build-vocab: train split only) and the context measurements (npm run context-stats):
//   expert          — verified expert episodes, kept by synth's rejection filter (the SFT data);
//   random          — a seeded random agent (baselinePolicies): the environments' replies to wrong
//                     tools, bad arguments and chatter, which RL rollouts read;
//   format-breaking — malformed calls every turn: the environments' format-error observations.
// Each episode is rendered turn by turn exactly as encodeConversation tokenises it, with the tools
// in either rendering (compact lines or Qwen3's JSON block).
import { codingFamily } from '../envs/coding/index';
import { functionCallingFamily, routingFamily } from '../envs/functionCalling/index';
import { serviceFamily } from '../envs/service/index';
import type { ChatMessage, EnvFamily, Policy, TaskBase, ToolSpec } from '../envs/types';
import { formatBreakingPolicy, randomPolicy } from '../eval/baselinePolicies';
import { runEpisode, type Episode } from '../eval/rollout';
import { hashString, mixSeeds } from '../eval/seeds';
import { conversationSegments, type ChatSegment } from '../tokenizer/chatSegments';
import { withToolRendering, type ToolRendering } from '../tokenizer/compactTools';
import { DEFAULT_ATTEMPTS_PER_CONVERSATION, rejectionReason } from './synth';

/** The task sets measured: routing (four short tools) and the BFCL-style mix are both function calling. */
export const CORPUS_FAMILY_NAMES = ['routing', 'function-calling', 'service', 'coding'] as const;
export type CorpusFamilyName = (typeof CORPUS_FAMILY_NAMES)[number];

const FAMILIES: Record<CorpusFamilyName, EnvFamily> = {
  routing: routingFamily as EnvFamily,
  'function-calling': functionCallingFamily as EnvFamily,
  service: serviceFamily as EnvFamily,
  coding: codingFamily as EnvFamily,
};

export function corpusFamily(name: CorpusFamilyName): EnvFamily {
  return FAMILIES[name];
}

/** A split as the families' task generators name it. */
export type TaskSplit = Parameters<EnvFamily['generateTask']>[2];

export type CorpusPolicy = 'expert' | 'random' | 'format-breaking';

export interface CorpusOptions {
  split: TaskSplit;
  /** Seed of the task stream: task i is generateTask(seed, i, split). */
  seed: number;
  /** Episodes wanted (expert: accepted ones; at most DEFAULT_ATTEMPTS_PER_CONVERSATION·n tasks are tried). */
  n: number;
  policy: CorpusPolicy;
}

function policyFor(family: EnvFamily, task: TaskBase, kind: CorpusPolicy, seed: number): Policy {
  if (kind === 'expert') return family.expertPolicy(task, seed);
  return kind === 'random' ? randomPolicy(seed) : formatBreakingPolicy();
}

/** Episodes of tasks 0, 1, … of `split`; expert episodes pass synth's rejection filter (full reward, success). */
export async function corpusEpisodes(name: CorpusFamilyName, opts: CorpusOptions): Promise<Episode[]> {
  const family = FAMILIES[name];
  const salt = hashString(`${family.name}/${opts.policy}`);
  const maxAttempts = opts.policy === 'expert' ? Math.ceil(opts.n * DEFAULT_ATTEMPTS_PER_CONVERSATION) : opts.n;
  const out: Episode[] = [];
  for (let i = 0; out.length < opts.n && i < maxAttempts; i++) {
    const task = family.generateTask(opts.seed, i, opts.split);
    const seed = mixSeeds(opts.seed, salt, i);
    const episode = await runEpisode(family, task, policyFor(family, task, opts.policy, seed), { seed });
    if (opts.policy !== 'expert' || rejectionReason(episode) === null) out.push(episode);
  }
  if (out.length < opts.n) throw new Error(`corpus: ${name} kept ${out.length} of ${opts.n} ${opts.policy} episodes on ${opts.split} after ${maxAttempts} tasks; the expert fails too often (see npm run synth)`);
  return out;
}

/** The segments encodeConversation tokenises one by one for this conversation and tool rendering. */
export function renderedChatSegments(messages: readonly ChatMessage[], tools: readonly ToolSpec[], rendering: ToolRendering): ChatSegment[] {
  const shown = withToolRendering(messages, tools, rendering);
  return conversationSegments(shown.messages, shown.tools);
}

/** The texts of renderedChatSegments. */
export function renderedSegments(messages: readonly ChatMessage[], tools: readonly ToolSpec[], rendering: ToolRendering): string[] {
  return renderedChatSegments(messages, tools, rendering).map((s) => s.text);
}
