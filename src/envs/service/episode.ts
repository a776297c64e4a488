// Plays one whole episode of a policy against a service environment (tests, demos, data checks).
// The rollout workers have their own loop; this is the plain-text version of it.

import type { ChatMessage, EpisodeLimits, Policy, StepResult } from '../types';
import { serviceFamily } from './index';
import type { ServiceTask } from './types';

/** The full conversation and the last step of an episode. */
export interface EpisodeRecord {
  /** System prompt, user opening, then assistant / tool / user messages in order. */
  messages: ChatMessage[];
  /** The step that ended the episode (or the last one taken). */
  last: StepResult;
  /** Assistant turns taken. */
  turns: number;
}

/** Runs `policy` on `task` until done (the env's own maxTurns always ends it). */
export async function playEpisode(task: ServiceTask, policy: Policy, limits?: Partial<EpisodeLimits>, weights?: Record<string, number>): Promise<EpisodeRecord> {
  const env = serviceFamily.createEnv(limits, weights);
  const { messages, tools } = env.reset(task);
  const convo: ChatMessage[] = [...messages];
  let turns = 0;
  for (;;) {
    const text = await policy(convo, tools);
    convo.push({ role: 'assistant', content: text });
    const last = await env.step(text);
    turns++;
    convo.push(...last.messages);
    if (last.done) return { messages: convo, last, turns };
  }
}
