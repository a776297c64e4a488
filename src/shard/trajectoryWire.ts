// Trajectories from another member: UTF-8 JSON on the wire, and on arrival a schema (zod), bounds
// that follow from the run (token ids below the vocabulary, lengths within the context, log-probs
// finite and ≤ 0, reward components in [0, 1]), the record's own consistency (checkTrajectory) and
// the job it answers (the tasks asked for, whole groups of G in order, one policy version no newer
// than the leader's). Anything else throws with the first problem; the leader drops the sender.
// Not checked: that the rewards are what the environment would pay (a member holding the secret can
// lie about them; replaying every episode on the leader would cost as much as playing it).
import { z } from 'zod';
import { TASK_FAMILY_NAMES } from '../envs/familyNames';
import { checkTrajectory, type Trajectory } from '../train/rl/trajectory';
import { tooDeep } from '../util/limits';

/** What the leader knows about the job a result answers. */
export interface ResultExpectation {
  vocabSize: number;
  /** Longest episode the run's context allows (tokens). */
  maxTotalTokens: number;
  maxTurns: number;
  groupSize: number;
  /** Task ids of the job's tasks, in order (the leader draws them itself). */
  taskIds: string[];
  /** The result's declared policy version; every trajectory must carry it. */
  policyVersion: number;
  /** The newest version the leader has published (a result cannot be newer). */
  latestVersion: number;
}

const finite = z.number().finite();
const nonNegInt = z.number().int().min(0);
const str = (max: number) => z.string().max(max);

const messageSchema = z.object({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: str(1 << 20),
  name: str(200).optional(),
  tool_calls: z.array(z.unknown()).max(64).optional(),
}).strict();

function trajectorySchema(e: ResultExpectation) {
  const L = e.maxTotalTokens;
  const perToken = <T extends z.ZodType>(item: T) => z.array(item).max(L);
  return z.object({
    taskId: str(200),
    category: str(200),
    family: z.enum(TASK_FAMILY_NAMES),
    group: nonNegInt,
    sample: nonNegInt,
    ids: perToken(z.number().int().min(0).max(e.vocabSize - 1)).min(1),
    lossMask: perToken(z.union([z.literal(0), z.literal(1)])),
    behaviourLogprobs: perToken(finite.max(1e-3)), // log-probs are ≤ 0; float rounding may give +1e-7
    turnIndex: perToken(z.number().int().min(-1).max(e.maxTurns - 1)),
    reward: z.object({
      components: z.record(str(64), finite.min(0).max(1)),
      weights: z.record(str(64), finite.min(0).max(1)),
      total: finite.min(-10).max(10),
      decidedAt: z.record(str(64), z.object({ turn: nonNegInt, char: nonNegInt }).strict()).optional(),
    }).strict(),
    turnTotals: z.array(finite).max(e.maxTurns),
    turnComponents: z.array(z.record(str(64), finite.min(0).max(1))).max(e.maxTurns),
    faults: z.record(str(64), z.number().int().min(0).max(e.maxTurns)),
    success: z.boolean(),
    turns: z.number().int().min(0).max(e.maxTurns),
    responseTokens: z.number().int().min(0).max(L),
    truncated: z.boolean(),
    end: z.enum(['done', 'max-turns', 'max-tokens', 'env-error']),
    policyVersion: nonNegInt,
    messages: z.array(messageSchema).max(4 * e.maxTurns + 4),
    error: str(4000).optional(),
    decidedAt: z.record(str(64), nonNegInt).optional(),
  }).strict();
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

export function encodeTrajectories(trajs: readonly Trajectory[]): Uint8Array {
  return encoder.encode(JSON.stringify(trajs));
}

/** The trajectories of a result payload, checked against the job; throws naming the first problem. */
export function decodeTrajectories(bytes: Uint8Array, e: ResultExpectation): Trajectory[] {
  let json: unknown;
  try {
    json = JSON.parse(decoder.decode(bytes));
  } catch (err) {
    throw new Error(`trajectories are not UTF-8 JSON (${(err as Error).message})`);
  }
  if (tooDeep(json, 12)) throw new Error('trajectories nest deeper than any trajectory does');
  const expected = e.taskIds.length * e.groupSize;
  if (!Array.isArray(json) || json.length !== expected) throw new Error(`expected ${expected} trajectories (${e.taskIds.length} tasks × G ${e.groupSize}), got ${Array.isArray(json) ? json.length : typeof json}`);
  if (e.policyVersion > e.latestVersion) throw new Error(`result claims policy version ${e.policyVersion}, but the newest published is ${e.latestVersion}`);
  const schema = trajectorySchema(e);
  return json.map((raw, i) => {
    const r = schema.safeParse(raw);
    if (!r.success) {
      const issue = r.error.issues[0];
      throw new Error(`trajectory ${i}: ${issue.path.join('.')}: ${issue.message}`);
    }
    const t = r.data as Trajectory;
    const [g, s] = [Math.floor(i / e.groupSize), i % e.groupSize];
    if (t.group !== g || t.sample !== s) throw new Error(`trajectory ${i} is group ${t.group} sample ${t.sample}, expected group ${g} sample ${s}`);
    if (t.taskId !== e.taskIds[g]) throw new Error(`trajectory ${i} played task '${t.taskId}', the job asked for '${e.taskIds[g]}'`);
    if (t.policyVersion !== e.policyVersion) throw new Error(`trajectory ${i} has policy version ${t.policyVersion}, the result says ${e.policyVersion}`);
    if (t.ids.length !== t.lossMask.length || t.ids.length !== t.behaviourLogprobs.length || t.ids.length !== t.turnIndex.length) throw new Error(`trajectory ${i}: per-token arrays differ in length`);
    checkTrajectory(t);
    return t;
  });
}
