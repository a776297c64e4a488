// The swarm's messages: one zod schema per kind for the JSON header, a byte bound per kind for the
// binary payload, and one parse function every transport calls before anything else sees a message.
// Peers are untrusted: a message that fails here is never acted on; the caller drops and logs the
// sender (SwarmNode). Binary payloads carry tensors (weights, gradients, deltas: float32/int8 in
// little-endian order) or UTF-8 JSON (trajectories), never structured objects a peer could shape.
import { z } from 'zod';

/** Bumped when a message changes meaning; peers with another version are refused with a message. */
export const SWARM_PROTOCOL_VERSION = 4; // 2: heartbeats say the tab's lifecycle (active / hidden / frozen); 3: data-parallel runs (dpCall, dpJoin, dpStart); 4: data-parallel GRPO splits a step's groups by rank (gather rounds of counts and episode summaries), dpStart names the checkpoint to resume from

/** libp2p protocol id of the swarm's stream. */
export const SWARM_PROTOCOL_ID = `/tabforge/swarm/${SWARM_PROTOCOL_VERSION}.0.0`;

/** Largest header (JSON text) accepted, bytes. */
export const MAX_HEADER_BYTES = 16 * 1024;
/** Largest payload of one fragment on the wire, bytes; bigger payloads are sent in fragments. */
export const FRAGMENT_BYTES = 1 << 20;
/** Most fragments one message may have (bounds reassembly memory: 512 MiB). */
export const MAX_FRAGMENTS = 512;

const id = z.string().min(1).max(96).regex(/^[A-Za-z0-9._:-]+$/, { error: 'ids are letters, digits and . _ : -' });
const int = (min: number, max: number) => z.number().int().min(min).max(max);
const finite = z.number().finite();
const version = int(0, 2 ** 31 - 1);

/** The roles a member plays (leader: trains and hands out work; rollout: plays episodes; rank: a data-parallel trainer). */
export const SWARM_ROLES = ['leader', 'rollout', 'rank', 'candidate'] as const;
export type SwarmRole = (typeof SWARM_ROLES)[number];

/**
 * A tab's page lifecycle as it last announced it: 'hidden' tabs are throttled by the browser (timers
 * at most once a second, later once a minute) but keep playing; 'frozen' tabs (Chrome freezes
 * background tabs) run nothing until they resume, so the leader gives their work to others.
 */
export const LIFECYCLES = ['active', 'hidden', 'frozen'] as const;
export type Lifecycle = (typeof LIFECYCLES)[number];

/** Announces a member and proves it holds the run's join secret (auth.ts): sent to everyone (tabs) or on each new stream (libp2p). */
const hello = z.object({
  t: z.literal('hello'),
  v: z.number().int(),
  run: id,
  /** Who the proof is for: one member's id, or '*' for everyone (tabs only: libp2p hellos name the receiver). */
  to: z.union([id, z.literal('*')]),
  role: z.enum(SWARM_ROLES),
  nonce: z.string().regex(/^[0-9a-f]{32}$/),
  proof: z.string().regex(/^[0-9a-f]{64}$/),
  /** Reply to this member's hello (true on the answer, so answers are not answered again). */
  reply: z.boolean(),
}).strict();

/** Why a hello was not accepted (wrong secret, other protocol version, banned): shown to the person. */
const refused = z.object({ t: z.literal('refused'), reason: z.string().max(500) }).strict();

/** Liveness and status, every heartbeat interval. `sentAt` is the sender's clock: shown, never compared (clock skew). */
const heartbeat = z.object({
  t: z.literal('heartbeat'),
  role: z.enum(SWARM_ROLES),
  /** Newest weights version the member holds (−1: none yet). */
  version: int(-1, 2 ** 31 - 1),
  /** Trajectories per second over its last jobs. */
  rolloutsPerSec: finite.min(0).max(1e9),
  busy: z.boolean(),
  /** document.visibilityState === 'visible' (hidden tabs are throttled by the browser). */
  visible: z.boolean(),
  /** The page's lifecycle (sent at once on visibilitychange / freeze / resume, before the tab stops). */
  lifecycle: z.enum(LIFECYCLES),
  sentAt: finite,
  /** Leader only: the GRPO stage being rolled out (−1: none) and its steps done. */
  stage: int(-1, 64),
  step: int(0, 1e9),
}).strict();

/** Leader → rollout member: the weights of `version` follow as payload (float32, parameter-table order). */
const weights = z.object({ t: z.literal('weights'), version, stage: int(0, 64), floats: int(1, 2 ** 31 - 1) }).strict();

/** Leader → rollout member: play `tasks` train tasks from `firstTask`, G samples each, with weights ≥ minVersion. */
const job = z.object({
  t: z.literal('job'),
  id: int(0, 2 ** 31 - 1),
  stage: int(0, 64),
  slot: int(0, 1e9),
  firstTask: int(0, 2 ** 40),
  tasks: int(1, 4096),
  seed: int(0, 2 ** 32 - 1),
  minVersion: version,
}).strict();

/** Rollout member → leader: a job's trajectories (UTF-8 JSON array as payload). */
const result = z.object({
  t: z.literal('result'),
  id: int(0, 2 ** 31 - 1),
  slot: int(0, 1e9),
  policyVersion: version,
  seconds: finite.min(0).max(1e7),
  generatedTokens: int(0, 2 ** 40),
}).strict();

/** Rollout member → leader: the job could not be played (its actor failed); the leader re-assigns it. */
const jobFailed = z.object({ t: z.literal('jobFailed'), id: int(0, 2 ** 31 - 1), reason: z.string().max(2000) }).strict();

/** A member leaves on purpose (page closed, run finished). */
const bye = z.object({ t: z.literal('bye'), reason: z.string().max(500) }).strict();

/** A new leader took over (tabs): from which checkpoint and step, for every page to say so. */
const leader = z.object({ t: z.literal('leader'), resumedFrom: z.string().max(200).nullable(), step: int(0, 1e9), stage: int(-1, 64) }).strict();

/** The leader finished the run: members stop waiting to take over. */
const done = z.object({ t: z.literal('done'), text: z.string().max(2000) }).strict();

/** Data-parallel collective: one rank's contribution to round `round` (payload: its tensor bytes; info: small JSON). */
const gather = z.object({
  t: z.literal('gather'),
  group: id,
  round: int(0, 2 ** 31 - 1),
  rank: int(0, 255),
  world: int(1, 256),
  bytes: int(0, 2 ** 31 - 1),
  /** Small JSON side-information (losses, metrics; collective.ts encodeInfo): bounded by the header size. */
  info: z.string(),
}).strict();

/**
 * Data-parallel runs (dataParallelRun.ts): the coordinator (rank 0) calls for ranks; each member
 * answers with what it will run (every field of its config, model and world size, as short JSON or a
 * hash), so a member that would train something else is refused naming the difference; once `world`
 * members agree the coordinator fixes the rank order and everyone starts step 1.
 */
const dpCall = z.object({ t: z.literal('dpCall'), world: int(1, 256) }).strict();
const dpJoin = z.object({ t: z.literal('dpJoin'), digest: z.record(z.string().max(40), z.string().max(200)) }).strict();
const dpStart = z.object({ t: z.literal('dpStart'), ranks: z.array(id).min(1).max(256), digest: z.record(z.string().max(40), z.string().max(200)), resumeFrom: z.string().min(1).max(200).nullable().optional() }).strict();

/** One piece of a message whose payload is larger than FRAGMENT_BYTES (header of the whole message in `of`). */
const fragment = z.object({
  t: z.literal('frag'),
  msg: int(0, 2 ** 31 - 1),
  i: int(0, MAX_FRAGMENTS - 1),
  n: int(2, MAX_FRAGMENTS),
  total: int(0, MAX_FRAGMENTS * FRAGMENT_BYTES),
  /** The whole message's header (only in fragment 0). */
  of: z.unknown().optional(),
}).strict();

export const swarmHeaderSchema = z.discriminatedUnion('t', [hello, refused, heartbeat, weights, job, result, jobFailed, bye, leader, done, gather, dpCall, dpJoin, dpStart]);
export type SwarmHeader = z.infer<typeof swarmHeaderSchema>;
export type FragmentHeader = z.infer<typeof fragment>;
export type HeaderOf<K extends SwarmHeader['t']> = Extract<SwarmHeader, { t: K }>;

/** A message as transports carry it: the header and an optional binary payload. */
export interface SwarmMessage<H = SwarmHeader> {
  h: H;
  p?: Uint8Array;
}

/** Most payload bytes a message kind may carry (context: the run's sizes, for the kinds whose size depends on them). */
export interface PayloadLimits {
  /** Parameters of the run's model (weights are exactly 4 bytes per parameter). */
  parameters: number;
  /** Largest trajectory JSON of one job, bytes. */
  resultBytes: number;
  /** Largest collective payload (gradients: 4 bytes per parameter). */
  gatherBytes: number;
}

export const DEFAULT_LIMITS: PayloadLimits = { parameters: 50_000_000, resultBytes: 64 << 20, gatherBytes: 256 << 20 };

export type ParseResult<H = SwarmHeader> = { ok: true; msg: SwarmMessage<H> } | { ok: false; reason: string };

/** Validates a whole (reassembled) message: header schema, payload presence and size for its kind. */
export function parseSwarmMessage(raw: { h: unknown; p?: unknown }, limits: PayloadLimits = DEFAULT_LIMITS): ParseResult {
  if (headerBytes(raw.h) > MAX_HEADER_BYTES) return { ok: false, reason: `header longer than ${MAX_HEADER_BYTES} bytes` };
  const parsed = swarmHeaderSchema.safeParse(raw.h);
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    return { ok: false, reason: `malformed message: ${i.path.join('.') || 'header'}: ${i.message}` };
  }
  const h = parsed.data;
  const p = raw.p;
  if (p !== undefined && !(p instanceof Uint8Array)) return { ok: false, reason: `'${h.t}' payload is not bytes` };
  const bytes = p?.byteLength ?? 0;
  const bad = payloadProblem(h, bytes, limits);
  if (bad) return { ok: false, reason: `'${h.t}' ${bad}` };
  return { ok: true, msg: p ? { h, p } : { h } };
}

function payloadProblem(h: SwarmHeader, bytes: number, limits: PayloadLimits): string | null {
  switch (h.t) {
    case 'weights':
      if (h.floats !== limits.parameters) return `has ${h.floats} floats; this run's model has ${limits.parameters} parameters`;
      return bytes === 4 * h.floats ? null : `payload is ${bytes} bytes, expected ${4 * h.floats}`;
    case 'result':
      return bytes > 0 && bytes <= limits.resultBytes ? null : `payload is ${bytes} bytes (1 … ${limits.resultBytes} allowed)`;
    case 'gather':
      if (h.bytes !== bytes) return `says ${h.bytes} bytes but carries ${bytes}`;
      return bytes <= limits.gatherBytes ? null : `payload is ${bytes} bytes, more than ${limits.gatherBytes}`;
    default:
      return bytes === 0 ? null : `carries ${bytes} payload bytes; this kind has none`;
  }
}

export function parseFragment(h: unknown): { ok: true; h: FragmentHeader } | { ok: false; reason: string } {
  const r = fragment.safeParse(h);
  return r.success ? { ok: true, h: r.data } : { ok: false, reason: `malformed fragment: ${r.error.issues[0].message}` };
}

function headerBytes(h: unknown): number {
  try {
    return JSON.stringify(h)?.length ?? 0; // UTF-16 units ≥ bytes/3; the framed path checks real bytes
  } catch {
    return Infinity; // cycles, BigInt: not JSON, not ours
  }
}

/** Float32 values of a payload (copied when unaligned); throws on a non-finite value, naming it. */
export function finiteFloats(p: Uint8Array, what: string): Float32Array {
  const f = p.byteOffset % 4 === 0 ? new Float32Array(p.buffer, p.byteOffset, p.byteLength / 4) : new Float32Array(p.slice().buffer);
  for (let i = 0; i < f.length; i++) if (!Number.isFinite(f[i])) throw new Error(`${what}: value ${i} is ${f[i]}`);
  return f;
}

/** The bytes of a float array (a view, no copy). */
export function floatBytes(f: Float32Array): Uint8Array {
  return new Uint8Array(f.buffer, f.byteOffset, f.byteLength);
}
