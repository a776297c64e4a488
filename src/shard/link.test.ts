// The "join this run" link: what a page accepts and what it refuses, in words (src/shard/link.ts).
import { describe, expect, it } from 'vitest';
import { parsePipelineConfig, PIPELINE_CONFIG_VERSION } from '../pipeline/config';
import { readSwarmLink, type SwarmLink, swarmHash } from './link';

const CONFIG = parsePipelineConfig({
  version: PIPELINE_CONFIG_VERSION, preset: 'nano', seed: 3, tasks: [{ family: 'function-calling', level: 'route4' }],
  context: { maxTotalTokens: 288, maxNewTokensPerTurn: 8, maxTurns: 1 },
  stages: [{ kind: 'sft', data: { source: 'synthetic', examples: 16 }, steps: 4, batchSize: 4, lr: 3e-3, warmupSteps: 0 }],
});
const RELAY = '/ip4/127.0.0.1/tcp/4001/ws/p2p/12D3KooWJhVsdkFeEivZBUmwxwvgg6M2bTtXz65pmivYYeTqoRLC';
const LEADER = '12D3KooWLfZ8QjLtVnnFEDjVkPtSCqpEeJv6omdgvv72LZpudnsc';
const link = (extra: Partial<SwarmLink>): SwarmLink => ({ v: 1, run: 'run-abcdef12', secret: 'secret-0123456789abcdef', config: CONFIG, ...extra });

describe('swarm links', () => {
  it('a data-parallel link over a relay reads back for 2 to 8 machines, and is refused for 9 saying why', () => {
    for (const world of [2, 3, 8]) {
      const ok = readSwarmLink(swarmHash(link({ relay: RELAY, leader: LEADER, dp: { world } })));
      expect(ok.kind).toBe('ok');
      if (ok.kind === 'ok') expect(ok.link.dp).toEqual({ world });
    }
    const nine = readSwarmLink(swarmHash(link({ relay: RELAY, leader: LEADER, dp: { world: 9 } })));
    expect(nine.kind).toBe('invalid');
    if (nine.kind === 'invalid') expect(nine.error).toMatch(/data parallel over 9 machines; across machines a data-parallel run has at most 8 members, because every rank's gradients go through rank 0's link/);
    // tabs of one browser: up to 16
    expect(readSwarmLink(swarmHash(link({ dp: { world: 3 } }))).kind).toBe('ok');
  });
});
