// The "join this run" link: a swarm run is its PipelineConfig, a run id and a join secret — plus,
// across machines, the relay's multiaddr and the leader's peer id — as base64url JSON in the URL
// fragment (`#swarm=…`; a fragment never reaches any server). Whoever holds the link holds the
// secret: it is shared like a password. Read links are validated like everything from outside.
import { z } from 'zod';
import { type ModelConfig, validateModelConfig } from '../model/config';
import { countParameters } from '../model/parameters';
import { type PipelineConfig, validatePipelineConfig } from '../pipeline/config';

export const SWARM_LINK_VERSION = 1;
const MAX_LINK_CHARS = 16_000;
/** Largest model a link may name (a loaded or test model instead of the preset's). */
const MAX_LINK_MODEL_PARAMETERS = 1e9;

export interface SwarmLink {
  v: typeof SWARM_LINK_VERSION;
  run: string;
  secret: string;
  config: PipelineConfig;
  /** The model when it is not the preset's (tests' micro model, a loaded model's shape). */
  model?: ModelConfig;
  /** Across machines: the relay (a /ws multiaddr ending in /p2p/<relay id>) and the leader's peer id. */
  relay?: string;
  leader?: string;
  /** Data parallel (dataParallelRun.ts): `world` tabs each train their share of every step's batch; absent = rollout tabs. */
  dp?: { world: number };
}

/** Most tabs a data-parallel run may have (a rank is one tab of this browser). */
export const MAX_DP_WORLD = 16;

/**
 * Most members of a data-parallel run across machines. A joiner is connected to the leader (rank 0)
 * only, so every rank's gradients go to rank 0, which sums them and sends the sum back to each
 * (dataParallel.ts, collective.ts reduceAtRank0): rank 0 receives and uploads W − 1 gradient copies
 * a step, 7 at most here, and adds W on the host — beyond that one leader's link and CPU bound the
 * step; DiLoCo (local steps, int8 deltas) is the mode for slow links.
 */
export const MAX_DP_MACHINES = 8;

/** Why a data-parallel link over a relay cannot run (null: it can). */
export function machinesDataParallelProblem(world: number): string | null {
  return world > MAX_DP_MACHINES ? `it asks for data parallel over ${world} machines; across machines a data-parallel run has at most ${MAX_DP_MACHINES} members, because every rank's gradients go through rank 0's link (more tabs of one browser: leave the relay address empty)` : null;
}

const modelSchema = z.object({
  vocabSize: z.number().int(), hiddenSize: z.number().int(), intermediateSize: z.number().int(), numLayers: z.number().int(),
  numHeads: z.number().int(), numKvHeads: z.number().int(), headDim: z.number().int(), rmsNormEps: z.number(), ropeTheta: z.number(),
  maxPositionEmbeddings: z.number().int(), tieWordEmbeddings: z.boolean(), tokenizer: z.enum(['byte', 'qwen3', 'qwen3-trimmed']),
}).strict();

const linkSchema = z.object({
  v: z.literal(SWARM_LINK_VERSION, { error: `must be ${SWARM_LINK_VERSION} (this build's link format)` }),
  run: z.string().regex(/^[A-Za-z0-9_-]{8,64}$/, { error: 'is not a run id' }),
  secret: z.string().regex(/^[A-Za-z0-9_-]{16,128}$/, { error: 'is not a join secret' }),
  config: z.unknown(),
  model: modelSchema.optional(),
  relay: z.string().max(400).regex(/^\/(ip4|ip6|dns4|dns6|dns)\/[^\s]+\/p2p\/[A-Za-z0-9]+$/, { error: 'is not a relay multiaddr (…/p2p/<relay id>)' }).optional(),
  leader: z.string().regex(/^[A-Za-z0-9]{40,80}$/, { error: 'is not a peer id' }).optional(),
  dp: z.object({ world: z.number().int().min(1).max(MAX_DP_WORLD, { error: `must be at most ${MAX_DP_WORLD} tabs` }) }).strict().optional(),
}).strict();

function toBase64Url(text: string): string {
  let binary = '';
  for (const b of new TextEncoder().encode(text)) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(s: string): string {
  if (!/^[A-Za-z0-9_-]*$/.test(s) || s.length % 4 === 1) throw new Error('it is not base64url');
  const bytes = Uint8Array.from(atob(s.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (s.length % 4)) % 4)), (c) => c.charCodeAt(0));
  return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
}

/** `#swarm=…` for a link. */
export function swarmHash(link: SwarmLink): string {
  return `#swarm=${toBase64Url(JSON.stringify(link))}`;
}

/** A full link: `base` (page URL, its fragment replaced) with the swarm fragment. */
export function swarmUrl(base: string, link: SwarmLink): string {
  return base.replace(/#.*$/, '') + swarmHash(link);
}

export type SwarmLinkRead = { kind: 'none' } | { kind: 'ok'; link: SwarmLink } | { kind: 'invalid'; error: string };

/** Reads `#swarm=…` from location.hash; every problem becomes one sentence for the page. */
export function readSwarmLink(hash: string): SwarmLinkRead {
  const encoded = new URLSearchParams(hash.replace(/^#/, '')).get('swarm');
  if (encoded === null) return { kind: 'none' };
  const invalid = (why: string): SwarmLinkRead => ({ kind: 'invalid', error: `This "join this run" link cannot be used: ${why}. Ask the person who started the run for the link again (it may have been cut off when copied).` });
  if (encoded.length > MAX_LINK_CHARS) return invalid(`it is ${encoded.length} characters long, more than a swarm link can be`);
  let json: unknown;
  try {
    json = JSON.parse(fromBase64Url(encoded));
  } catch (e) {
    return invalid(`swarm= is not base64url-encoded JSON (${(e as Error).message})`);
  }
  const r = linkSchema.safeParse(json);
  if (!r.success) return invalid(r.error.issues.map((i) => `${i.path.join('.') || 'link'} ${i.message}`).join('; '));
  const cfg = validatePipelineConfig(r.data.config);
  if (!cfg.ok) return invalid(`its run configuration is invalid (${cfg.errors.join('; ')})`);
  if (!r.data.dp && !cfg.config.stages.some((s) => s.kind === 'grpo')) return invalid('its run has no GRPO stage, so there is nothing for other tabs to do');
  const machines = r.data.dp && r.data.relay ? machinesDataParallelProblem(r.data.dp.world) : null;
  if (machines) return invalid(machines);
  if (r.data.model) {
    try {
      validateModelConfig(r.data.model);
    } catch (e) {
      return invalid((e as Error).message);
    }
    if (countParameters(r.data.model) > MAX_LINK_MODEL_PARAMETERS) return invalid(`its model has more than ${MAX_LINK_MODEL_PARAMETERS} parameters`);
  }
  if ((r.data.relay === undefined) !== (r.data.leader === undefined)) return invalid('it names a relay without a leader (or a leader without a relay)');
  return { kind: 'ok', link: { ...r.data, config: cfg.config } as SwarmLink };
}
