// Data parallel across tabs of one browser (a link with `dp: { world }`): the tab that holds the
// run's Web Lock is the coordinator and rank 0; it calls for ranks (dpCall), every other tab answers
// with what it would train (dpJoin: each field of its PipelineConfig, its model and the world size,
// as short JSON or a hash), and a tab whose answer differs from the coordinator's is refused with the
// differences named. When `world` tabs agree, the coordinator fixes the rank order (itself, then the
// others in the order they agreed) in dpStart and every rank runs the same pipeline with a
// gradientShard over one Collective (dataParallel.ts, collective.ts): each SFT step's rows and each
// GRPO step's tasks (rank r plays and trains only its slice of the groups: train/rl/dataParallelRl.ts)
// are split by rank, gradients summed in rank order, the same AdamW step.
// A rank that leaves stops the collective on every other rank (no rank goes on alone: its updates
// would no longer be the run's); session.ts turns that into a failed run that names the rank.
// Across machines (a link with a relay) the rank-0 tab is the link's leader instead of the lock
// holder, every joiner is connected to it only, and the collectives go via rank 0 (collective.ts).
import type { ModelConfig } from '../model/config';
import type { PipelineConfig } from '../pipeline/config';
import type { RlStepRecord } from '../train/rl/rlMetrics';
import { Collective } from './collective';
import type { HeaderOf } from './protocol';
import type { SwarmNode } from './swarmNode';
import { sha256Hex } from '../storage/format';

/** What a rank will train, field by field (keys: `world`, `model`, `config.<field>`, `config.stages.<i>`). */
export type RunDigest = Record<string, string>;

/** The collective's group name for a run's gradients. */
export const DP_GROUP = 'dp-grads';
/** The collective's group name for sending rank 0's checkpoint to the other machines. */
export const DP_CHECKPOINT_GROUP = 'dp-checkpoint';

/** FNV-1a over the UTF-16 units, 2 × 32 bits: a fingerprint for naming differences, not a security check. */
function fingerprint(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    a = Math.imul(a ^ text.charCodeAt(i), 0x01000193) >>> 0;
    b = Math.imul(b ^ text.charCodeAt(text.length - 1 - i), 0x01000193) >>> 0;
  }
  return a.toString(16).padStart(8, '0') + b.toString(16).padStart(8, '0');
}

const shown = (v: unknown): string => {
  const j = JSON.stringify(v) ?? 'undefined';
  return j.length <= 120 ? j : `#${fingerprint(j)}`;
};

export function runDigest(cfg: PipelineConfig, model: ModelConfig, world: number): RunDigest {
  const out: RunDigest = { world: String(world), model: shown(model) };
  for (const [k, v] of Object.entries(cfg)) {
    if (k === 'stages') for (const [i, s] of cfg.stages.entries()) out[`config.stages.${i}`] = shown(s);
    else out[`config.${k}`] = shown(v);
  }
  return out;
}

/** Every field where `theirs` differs from `mine`, in words (null: they agree). */
export function digestDifference(mine: RunDigest, theirs: RunDigest, me: string, them: string): string | null {
  const keys = [...new Set([...Object.keys(mine), ...Object.keys(theirs)])].sort();
  const diffs = keys.filter((k) => mine[k] !== theirs[k]).map((k) => `${k} is ${theirs[k] ?? 'absent'} in ${them}, ${mine[k] ?? 'absent'} in ${me}`);
  return diffs.length ? diffs.join('; ') : null;
}

/** Why `cfg` cannot run data parallel over `world` tabs or machines (null: it can). */
export function dataParallelProblem(cfg: PipelineConfig, world: number, unit: 'tab' | 'machine' = 'tab'): string | null {
  if (cfg.lora) return 'data parallel on the page trains full-parameter models: remove lora';
  for (const [i, s] of cfg.stages.entries()) {
    if (s.kind === 'sft' && s.batchSize < world) return `stage ${i} (sft): its batch of ${s.batchSize} rows cannot give each of ${world} ${unit}s a row: choose a batch of at least ${world} rows`;
    if (s.kind === 'grpo' && s.staleness !== undefined) return `stage ${i} (grpo): every rank plays its share of the step's groups with synchronous rollouts: remove its staleness (${s.staleness})`;
    if (s.kind === 'grpo' && s.tasksPerStep < world) return `stage ${i} (grpo): its ${s.tasksPerStep} tasks per step cannot give each of ${world} ${unit}s a group to play: choose at least ${world} tasks per step`;
  }
  return null;
}

export interface DataParallelOptions {
  node: SwarmNode;
  cfg: PipelineConfig;
  model: ModelConfig;
  world: number;
  note: (line: string) => void;
  /** A collective waits this long for a rank's gradients before failing (default 120 s). */
  timeoutMs?: number;
  /**
   * Ranks on separate machines (libp2p): each joiner is connected to rank 0 only, so the collectives
   * go via rank 0, and a resumed run's checkpoint is sent from rank 0's store to every rank's own.
   */
  acrossMachines?: boolean;
}

/** The rank order and this tab's collective (null when world is 1: the plain pipeline, no shard). */
export interface DataParallelStart {
  ranks: string[];
  rank: number;
  collective: Collective | null;
  /** The checkpoint (in rank 0's store, which every tab of the browser reads) every rank resumes from; null: a fresh run. */
  resumeFrom: string | null;
  /** Across machines, resuming: the collective that carries rank 0's checkpoint to every rank (checkpointShare.ts). */
  checkpointShare: Collective | null;
}

export class DataParallelRun {
  readonly digest: RunDigest;
  private started: DataParallelStart | null = null;
  private coordinating = false;
  private readonly agreed: string[] = [];
  /** Coordinator: tabs refused once (not answered again, so their first reason stays what they show). */
  private readonly refusedIds = new Set<string>();
  /** Member: the coordinator refused this tab; it stops answering calls. */
  private refused = false;
  private readonly startListeners: ((s: DataParallelStart) => void)[] = [];
  private wakeCoordinator: () => void = () => {};

  /** What a rank is, in messages: a tab of one browser, or a machine. */
  private readonly unit: 'tab' | 'machine';

  constructor(private readonly o: DataParallelOptions) {
    this.unit = o.acrossMachines ? 'machine' : 'tab';
    this.digest = runDigest(o.cfg, o.model, o.world);
    const { node } = o;
    node.on('dpCall', (from) => {
      if (!this.started && !this.coordinating && !this.refused) void node.say(from, { h: { t: 'dpJoin', digest: this.digest } });
    });
    node.onRefused(() => {
      this.refused = true;
    });
    node.on('dpJoin', (from, m) => void this.onJoin(from, m.h));
    node.on('dpStart', (from, m) => this.onStart(from, m.h));
    node.onLeave((id) => {
      const i = this.agreed.indexOf(id);
      if (i >= 0 && !this.started) {
        this.agreed.splice(i, 1);
        o.note(`${id} left before the run started: waiting for ${o.world - 1 - this.agreed.length} more ${this.unit}(s)`);
      }
    });
  }

  /** Whether this tab is one of the run's ranks. */
  get joined(): DataParallelStart | null {
    return this.started;
  }

  /** Called when dpStart names this tab (members) or the coordinator has its ranks. */
  onStarted(f: (s: DataParallelStart) => void): void {
    this.startListeners.push(f);
  }

  private async onJoin(from: string, h: HeaderOf<'dpJoin'>): Promise<void> {
    if (!this.coordinating) return;
    if (this.refusedIds.has(from)) return;
    const refuse = async (reason: string) => {
      this.refusedIds.add(from);
      this.o.note(`refused ${from}: ${reason}`);
      await this.o.node.say(from, { h: { t: 'refused', reason: reason.slice(0, 500) } }).catch(() => {});
    };
    if (this.agreed.includes(from)) return;
    const diff = digestDifference(this.digest, h.digest, 'rank 0\'s run', `this ${this.unit}'s link`);
    if (diff) return refuse(`this ${this.unit} would train a different run than rank 0 (${this.o.node.selfId}): ${diff}. Open the run's own "join this run" link`);
    if (this.started) return refuse(`this data-parallel run already trains with its ${this.o.world} ${this.unit}s; start a new run to use this ${this.unit}`);
    this.agreed.push(from);
    this.o.note(`${from} agreed on the run (${this.agreed.length + 1} of ${this.o.world} ${this.unit}s)`);
    this.wakeCoordinator();
  }

  private onStart(from: string, h: HeaderOf<'dpStart'>): void {
    if (this.started || this.coordinating) return;
    if (h.ranks[0] !== from) return this.o.note(`ignored a start of the data-parallel run from ${from}, which is not its rank 0`);
    const diff = digestDifference(this.digest, h.digest, `this ${this.unit}`, `rank 0 (${from})`);
    if (diff) return this.o.note(`refused to start: rank 0 (${from}) trains a different run: ${diff}`);
    const rank = h.ranks.indexOf(this.o.node.selfId);
    if (rank < 0) return this.o.note(`the data-parallel run started with ${h.ranks.length} other ${this.unit}s; this ${this.unit} is not one of its ranks`);
    if (h.ranks.length !== this.o.world) return this.o.note(`refused to start: rank 0 (${from}) started with ${h.ranks.length} ranks, the link says ${this.o.world}`);
    this.begin(h.ranks, rank, h.resumeFrom ?? null);
  }

  private begin(ranks: string[], rank: number, resumeFrom: string | null): void {
    // the collective listens before dpStart goes out (rank 0) or as soon as it arrives (others): no round is missed
    const route = this.o.acrossMachines ? 'via-rank0' : 'direct';
    const collective = ranks.length > 1 ? new Collective(this.o.node, DP_GROUP, rank, ranks, this.o.timeoutMs, route) : null;
    const checkpointShare = ranks.length > 1 && resumeFrom !== null && this.o.acrossMachines ? new Collective(this.o.node, DP_CHECKPOINT_GROUP, rank, ranks, this.o.timeoutMs, route) : null;
    this.started = { ranks, rank, collective, resumeFrom, checkpointShare };
    this.o.note(`data parallel: this ${this.unit} is rank ${rank} of ${ranks.length} (ranks in order: ${ranks.join(', ')})${resumeFrom ? `, resuming from checkpoint ${resumeFrom}` : ''}`);
    for (const f of this.startListeners) f(this.started);
  }

  /** Rank 0: calls for ranks until `world − 1` other tabs agree, then fixes the order and starts everyone (all resuming from `resumeFrom` when given). */
  async coordinate(signal?: AbortSignal, resumeFrom: string | null = null): Promise<DataParallelStart> {
    if (this.started) return this.started;
    this.coordinating = true;
    const { node, world } = this.o;
    if (world > 1) this.o.note(`data parallel over ${world} ${this.unit}s: waiting for ${world - 1} more ${this.unit}(s) to open the link`);
    while (this.agreed.length < world - 1) {
      if (signal?.aborted) throw new Error(`stopped while waiting for the data-parallel run's ${this.unit}s`);
      await node.say(null, { h: { t: 'dpCall', world } });
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 1000);
        this.wakeCoordinator = () => (clearTimeout(timer), resolve());
      });
    }
    const ranks = [node.selfId, ...this.agreed.slice(0, world - 1)];
    this.begin(ranks, 0, resumeFrom);
    if (world > 1) await node.say(null, { h: { t: 'dpStart', ranks, digest: this.digest, resumeFrom } });
    return this.started!;
  }
}

/** SHA-256 of weights in parameter-table order, and the values themselves when small. */
export async function weightsFingerprint(values: Map<string, Float32Array>): Promise<{ sha256: string; values: Float32Array | null }> {
  const total = [...values.values()].reduce((a, v) => a + v.length, 0);
  const all = new Float32Array(total);
  let at = 0;
  for (const v of values.values()) {
    all.set(v, at);
    at += v.length;
  }
  return { sha256: await sha256Hex(new Uint8Array(all.buffer)), values: total <= 4_000_000 ? all : null };
}

/** A data-parallel rank's own rollouts per second over its last few GRPO steps (it plays only its share of each step's groups). */
export function rankRolloutsPerSec(records: readonly RlStepRecord[]): number {
  const recent = records.slice(-5).flatMap((r) => (r.rank ? [r.rank] : []));
  const seconds = recent.reduce((a, r) => a + r.rolloutSeconds, 0);
  return seconds > 0 ? recent.reduce((a, r) => a + r.episodes, 0) / seconds : 0;
}
