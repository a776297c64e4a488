// Episodes of the task sets (src/envs/taskSets.ts) as the model sees them, for the trimmed
// vocabulary (npm run build-vocab: train split only) and the context measurements (npm run context-stats):
//   expert          — verified expert episodes, kept by synth's rejection filter (the SFT data);
//   random          — a seeded random agent (baselinePolicies): the environments' replies to wrong
//                     tools, bad arguments and chatter, which RL rollouts read;
//   format-breaking — malformed calls every turn: the environments' format-error observations.
// Each episode is rendered turn by turn exactly as encodeConversation tokenises it, with the tools
// in either rendering (compact lines or Qwen3's JSON block).
import type { ChatMessage, EnvFamily, Policy, TaskBase, ToolSpec } from '../envs/types';
import type { Split } from '../envs/splits';
import { TASK_SETS, taskSet, type TaskSet } from '../envs/taskSets';
import { formatBreakingPolicy, randomPolicy } from '../eval/baselinePolicies';
import { runEpisode, type Episode } from '../eval/rollout';
import { conversationSegments, type ChatSegment } from '../tokenizer/chatSegments';
import { withToolRendering, type ToolRendering } from '../tokenizer/compactTools';
import { hashString, mixSeeds } from '../util/seeds';
import { DEFAULT_ATTEMPTS_PER_CONVERSATION, rejectionReason } from './synth';

export type { Split } from '../envs/splits';

/** A task set's name in tables and logs: family/level. */
export function taskSetName(set: TaskSet): string {
  return `${set.family}/${set.level}`;
}

/** The task sets the trimmed vocabulary is built from: every set that has a train split. */
export function trainTaskSets(): TaskSet[] {
  return TASK_SETS.filter((s) => s.splits.includes('train'));
}

/** The task sets the context table reports, with their row names: routing and the BFCL-style mix are both function calling. */
export const CONTEXT_TASK_SETS: readonly { label: string; set: TaskSet }[] = [
  { label: 'routing (route4)', set: taskSet('function-calling', 'route4') },
  { label: 'BFCL-style mix', set: taskSet('function-calling', 'bfcl') },
  { label: 'service', set: taskSet('service', 'retail') },
  { label: 'coding', set: taskSet('coding', 'functions') },
];

export type CorpusPolicy = 'expert' | 'random' | 'format-breaking';

export interface CorpusOptions {
  split: Split;
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
export async function corpusEpisodes(set: TaskSet, opts: CorpusOptions): Promise<Episode[]> {
  if (!set.splits.includes(opts.split)) throw new Error(`corpus: ${taskSetName(set)} has no ${opts.split} split (it has ${set.splits.join(', ')})`);
  const family = set.envFamily;
  const salt = hashString(`${taskSetName(set)}/${opts.policy}`);
  const maxAttempts = opts.policy === 'expert' ? Math.ceil(opts.n * DEFAULT_ATTEMPTS_PER_CONVERSATION) : opts.n;
  const out: Episode[] = [];
  for (let i = 0; out.length < opts.n && i < maxAttempts; i++) {
    const task = family.generateTask(opts.seed, i, opts.split);
    const seed = mixSeeds(opts.seed, salt, i);
    const episode = await runEpisode(family, task, policyFor(family, task, opts.policy, seed), { seed });
    if (opts.policy !== 'expert' || rejectionReason(episode) === null) out.push(episode);
  }
  if (out.length < opts.n) throw new Error(`corpus: ${taskSetName(set)} kept ${out.length} of ${opts.n} ${opts.policy} episodes on ${opts.split} after ${maxAttempts} tasks; the expert fails too often (see npm run synth)`);
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
