// A CPU rollout actor for swarm tests: plays the spec's tasks with a scripted generator (no GPU),
// records the version of the weights it holds, and can be made slow or broken per job.
import { ByteTokenizer } from '../../tokenizer';
import { rolloutFamily, type RolloutActorSpec, type RolloutResult } from '../../train/rl/async/actors';
import type { RolloutHandle } from '../../train/rl/async/handles';
import type { PackedWeights } from '../../train/rl/async/weights';
import { generatedTokens } from '../../train/rl/rlMetrics';
import { rolloutBatch } from '../../train/rl/rollout';
import { scriptedGenerator } from '../../train/testing/scriptedGenerator';

export interface ScriptedActorOptions {
  /** Extra wall time per job (ms). */
  delayMs?: number;
  /** Changes the result before it is sent (a lying or broken member). */
  tamper?: (r: RolloutResult) => RolloutResult;
}

export function scriptedActor(spec: RolloutActorSpec, weights: PackedWeights, opts: ScriptedActorOptions = {}): RolloutHandle {
  const tok = new ByteTokenizer();
  const family = rolloutFamily(spec);
  const generator = scriptedGenerator(tok, () => 'I cannot help with that.');
  let version = weights.version;
  return {
    setWeights: async (p) => {
      if (p.version > version) version = p.version;
    },
    async rollout(job) {
      const used = version;
      const tasks = Array.from({ length: job.tasks }, (_, i) => family.generateTask(spec.taskSeed, job.firstTask + i, 'train'));
      const trajectories = await rolloutBatch({ family, tasks, tokenizer: tok, generator, config: spec.rollout, seed: job.seed, policyVersion: used });
      if (opts.delayMs) await new Promise((r) => setTimeout(r, opts.delayMs));
      const r: RolloutResult = { slot: job.slot, policyVersion: used, trajectories, seconds: (opts.delayMs ?? 0) / 1000, generatedTokens: generatedTokens(trajectories) };
      return opts.tamper ? opts.tamper(r) : r;
    },
    terminate: async () => {},
  };
}
