// The playground: a request the person types, put to the current model in a task set's environment
// (its system prompt and tools: a test task whose user message is replaced by the typed text), played
// turn by turn like an evaluation episode. Each message streams out as it happens, so the page shows
// the model calling tools and the tool results (or the simulated user's replies) arriving. The
// reward is the task's and means little for a typed request; the page does not show it as a score.
import { entryFamily, taskSetName } from '../envs/taskMix';
import type { TaskFamilyName } from '../envs/familyNames';
import type { EnvFamily, Environment, TaskBase } from '../envs/types';
import type { GpuRuntime } from '../gpu/runtime';
import { GREEDY } from '../model/sampling';
import type { GpuWeights } from '../model/weights';
import type { ContextConfig } from '../pipeline/config';
import { tokenizerForModel } from '../tokenizer';
import { modelTurnGenerator } from '../train/rl/modelGenerator';
import { DEFAULT_ROLLOUT, rolloutBatch } from '../train/rl/rollout';
import { trajectoryView } from './episodeView';
import type { EpisodeView, MessageView } from './runEvents';

export interface PlaygroundRequest {
  family: TaskFamilyName;
  level?: string;
  /** The request as the user's message. */
  text: string;
  /** 0: greedy. */
  temperature: number;
  seed: number;
  context: ContextConfig;
}

export const MAX_PLAYGROUND_CHARS = 2000;

/** The family with every opening's first user message replaced by `text`, and every message reported as it happens. */
function typedFamily(family: EnvFamily, text: string, see: (m: MessageView) => void): EnvFamily {
  return {
    ...family,
    generateTask: (seed, index, split) => family.generateTask(seed, index, split),
    createEnv(limits, weights): Environment {
      const env = family.createEnv(limits, weights);
      return {
        family: env.family,
        reset(task: TaskBase) {
          const opening = env.reset(task);
          const user = opening.messages.findIndex((m) => m.role === 'user');
          const messages = opening.messages.map((m, i) => (i === user ? { ...m, content: text } : m));
          for (const m of messages) see({ role: m.role, content: m.content });
          return { ...opening, messages };
        },
        async step(assistantText: string) {
          see({ role: 'assistant', content: assistantText });
          const r = await env.step(assistantText);
          for (const m of r.messages) see(m.name === undefined ? { role: m.role, content: m.content } : { role: m.role, content: m.content, name: m.name });
          return r;
        },
      };
    },
  };
}

export async function playground(rt: GpuRuntime, w: GpuWeights, req: PlaygroundRequest, see: (m: MessageView) => void): Promise<EpisodeView> {
  const text = req.text.trim();
  if (text === '') throw new Error('type a request first');
  if (text.length > MAX_PLAYGROUND_CHARS) throw new Error(`the request is ${text.length} characters; the playground takes up to ${MAX_PLAYGROUND_CHARS}`);
  const entry = { family: req.family, level: req.level };
  const base = entryFamily(entry);
  const family = typedFamily(base, text, see);
  const task = base.generateTask(req.seed, 0, 'test');
  const tok = await tokenizerForModel(w.cfg);
  const sampling = req.temperature > 0 ? { temperature: req.temperature, topK: 0, topP: 1 } : GREEDY;
  const c = req.context;
  const config = { ...DEFAULT_ROLLOUT, groupSize: 1, temperature: req.temperature, maxTurns: c.maxTurns, maxNewTokensPerTurn: c.maxNewTokensPerTurn, maxTotalTokens: Math.min(c.maxTotalTokens, w.cfg.maxPositionEmbeddings) };
  const [t] = await rolloutBatch({ family, tasks: [task], tokenizer: tok, generator: modelTurnGenerator(rt, w, sampling), config, seed: req.seed, policyVersion: 0 });
  return trajectoryView(t, { source: 'sample', stage: -1, step: 0, label: 'playground', taskSet: taskSetName(entry) }, tok.imEndId);
}
