// A CPU ActorPool for coordinator tests: rollout actors play the fake calculator family with the
// scripted generator, the trainer only counts versions; both take a chosen wall time, so the
// interleaving of rollouts and training steps is real and recorded in a timeline.
import { fakeFamily } from '../../eval/fakeFamily';
import { ByteTokenizer } from '../../tokenizer';
import type { RolloutResult } from '../rl/async/actors';
import type { ActorPool } from '../rl/async/handles';
import { packWeights, type PackedWeights } from '../rl/async/weights';
import { generatedTokens } from '../rl/rlMetrics';
import { type RolloutConfig, rolloutBatch } from '../rl/rollout';
import { fakeExpertReply, scriptedGenerator } from './scriptedGenerator';

export interface TimelineEvent {
  kind: 'rollout' | 'train';
  /** Actor index (rollouts) or −1 (trainer). */
  actor: number;
  start: number;
  end: number;
  /** Weights version used (rollout) or trained into (train: the version before the step). */
  version: number;
  slot: number;
}

export interface FakePool extends ActorPool {
  timeline: TimelineEvent[];
  /** Rollout actors created so far (restarts included). */
  created: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function fakePool(opts: { rolloutMs: number; trainMs: number; rollout: RolloutConfig; rolloutMsByActor?: number[] }): FakePool {
  const tok = new ByteTokenizer();
  const family = fakeFamily();
  const timeline: TimelineEvent[] = [];
  let version = 0;
  const t0 = performance.now();
  const now = () => performance.now() - t0;
  const pool: FakePool = {
    timeline,
    created: 0,
    trainer: {
      async train(trajs) {
        const start = now();
        await sleep(opts.trainMs);
        const slot = (trajs[0] as { slot?: number } | undefined)?.slot ?? -1;
        timeline.push({ kind: 'train', actor: -1, start, end: now(), version, slot });
        version++;
        return { skipped: false, metrics: {}, trainedTokens: generatedTokens(trajs), processedTokens: trajs.reduce((a, t) => a + t.ids.length, 0), episodeTokens: trajs.reduce((a, t) => a + t.ids.length, 0), rewards: trajs.map((t) => t.reward.total), keptGroups: trajs.filter((t) => t.sample === 0).map(() => true), version, seconds: opts.trainMs / 1000 };
      },
      snapshot: async () => packWeights(new Map([['w', Float32Array.of(version)]]), version),
      terminate: async () => {},
    },
    async createRollout(index, weights) {
      pool.created++;
      let current: PackedWeights = weights;
      const generator = scriptedGenerator(tok, fakeExpertReply);
      return {
        setWeights: async (p) => void (current = p),
        async rollout(job): Promise<RolloutResult> {
          const start = now();
          const used = current.version;
          const tasks = Array.from({ length: job.tasks }, (_, i) => family.generateTask(1, job.firstTask + i, 'train'));
          const trajectories = await rolloutBatch({ family, tasks, tokenizer: tok, generator, config: opts.rollout, seed: job.seed, policyVersion: used });
          await sleep(opts.rolloutMsByActor?.[index] ?? opts.rolloutMs);
          timeline.push({ kind: 'rollout', actor: index, start, end: now(), version: used, slot: job.slot });
          for (const t of trajectories) (t as { slot?: number }).slot = job.slot;
          return { slot: job.slot, policyVersion: used, trajectories, seconds: opts.rolloutMs / 1000, generatedTokens: generatedTokens(trajectories) };
        },
        terminate: async () => {},
      };
    },
    close: async () => {},
  };
  return pool;
}
