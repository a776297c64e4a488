// Command line of `npm run learn`: flags → a PipelineConfig (src/pipeline/presets.ts learningConfig)
// plus what the CLI itself does with the run (metrics file, saved weights, the SFT-only comparison,
// seeds). Parsed with Node's util.parseArgs (strict: unknown flags and missing values are errors);
// a flag given twice is refused rather than silently keeping the last.
import { parseArgs } from 'node:util';
import { CREDIT_SCHEMES, type CreditScheme, EVAL_SPLITS } from '../../src/pipeline/config';
import type { TaskMixEntry } from '../../src/envs/taskMix';
import { TASK_SETS } from '../../src/envs/taskSets';
import { type LearningOptions, ROUTING_LEARNING } from '../../src/pipeline/presets';

export const LEARN_FAMILIES = ['function-calling', 'service', 'coding', 'all'] as const;
export type LearnFamily = (typeof LEARN_FAMILIES)[number];

export interface LearnArgs {
  family: LearnFamily;
  /** The pipeline options (task mix, stage sizes, seeds of the first run). */
  options: LearningOptions;
  /** Run seeds: one full run per seed; the last line reports the mean (and range) over them. */
  seeds: number[];
  /** Also run the SFT-only arm with the GRPO stages' compute (default on). */
  compare: boolean;
  /** JSONL of every stage's step metrics, evaluations and curves. */
  out?: string;
  /** Checkpoint folder (per seed when several): autosave every `saveEvery` steps, the final weights as an HF folder in DIR/final. */
  save?: string;
  saveEvery: number;
  keep: number;
  /** Continue from the newest complete checkpoint in this folder (same flags). */
  resume?: string;
  /** Print the pipeline config as JSON and exit. */
  printConfig: boolean;
  help: boolean;
}

export const LEARN_USAGE = `usage: npm run learn -- --family function-calling|service|coding|all [options]
  --family F           task family: function-calling (default task set route8), service, coding, or all (a mix)
  --level L            the family's task set (default: the first): ${TASK_SETS.map((t) => `${t.family} ${t.level}`).join(', ')}
  --preset P           nano (default), tiny, small (byte tokenizer); nano-q, tiny-q (trimmed Qwen3 vocabulary: service and coding fit)
  --seed S | --seeds 1,2,3   run seed(s); several seeds → mean and range in the last line
  --sft-examples N     verified expert conversations in the fixed SFT set (train split)
  --sft-drills N       copy drills mixed into the SFT set (generic echo calls of random strings)
  --sft-steps N        SFT optimizer steps over that set
  --sft-lr X           SFT learning rate
  --sft-batch B        SFT rows per step
  --steps N            GRPO steps
  --tasks-per-step N   GRPO tasks (groups) per step
  --group G            samples per task
  --lr X               GRPO learning rate
  --kl B               KL coefficient β to the SFT model (0: no reference forward)
  --credit C           ${CREDIT_SCHEMES.join(' | ')} (granular-reward ablation)
  --sampling-rounds R  DAPO refill rounds per step (1: drop zero-signal groups only)
  --async K            GRPO through the async coordinator, staleness bound K
  --eval-n N           test tasks per task set per evaluation
  --eval-also L[,L]    also score these task sets of the family at every before/after evaluation (e.g. bfcl-unseen-tools)
  --eval-split S       test (default: the reported figures) or validation (to choose settings without looking at test)
  --eval-every N       validation curve every N GRPO steps
  --eval-before        also evaluate the untrained model
  --no-compare         skip the SFT-only arm with the same extra compute
  --out FILE           write step metrics, evaluations and curves as JSONL
  --save DIR           checkpoints in DIR every --save-every steps (default 25) and the final weights as an HF folder in DIR/final
                       (DIR/seed-S with several seeds); --keep N checkpoints kept (default 3, plus the best)
  --resume DIR         continue exactly from the newest complete checkpoint in DIR (run with the same flags)
  --print-config       print the pipeline config as JSON and exit`;

/** The default task mix of a family. */
export function familyTasks(family: LearnFamily): TaskMixEntry[] {
  switch (family) {
    case 'function-calling': return [{ family: 'function-calling', level: 'route8', weight: 1 }];
    case 'service': return [{ family: 'service', weight: 1 }];
    case 'coding': return [{ family: 'coding', weight: 1 }];
    case 'all': return [{ family: 'function-calling', level: 'route8', weight: 1 }, { family: 'service', weight: 1 }, { family: 'coding', weight: 1 }];
  }
}

const FLAGS = {
  family: { type: 'string' }, level: { type: 'string' }, preset: { type: 'string' },
  seed: { type: 'string' }, seeds: { type: 'string' },
  'sft-examples': { type: 'string' }, 'sft-drills': { type: 'string' }, 'sft-steps': { type: 'string' }, 'sft-lr': { type: 'string' }, 'sft-batch': { type: 'string' },
  steps: { type: 'string' }, 'tasks-per-step': { type: 'string' }, group: { type: 'string' }, lr: { type: 'string' }, kl: { type: 'string' },
  credit: { type: 'string' }, 'sampling-rounds': { type: 'string' }, async: { type: 'string' },
  'eval-n': { type: 'string' }, 'eval-split': { type: 'string' }, 'eval-also': { type: 'string' }, 'eval-every': { type: 'string' }, 'eval-before': { type: 'boolean' }, 'no-compare': { type: 'boolean' },
  out: { type: 'string' }, save: { type: 'string' }, 'save-every': { type: 'string' }, keep: { type: 'string' }, resume: { type: 'string' }, 'print-config': { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
} as const;

/** The largest count any flag takes (steps, examples, tasks): a run of more is a typo, not a plan. */
const MAX_COUNT = 10_000_000;

function integer(flag: string, v: string, min: number, max = MAX_COUNT): number {
  const n = Number(v);
  if (!/^\s*[+]?\d+\s*$/.test(v) || !Number.isSafeInteger(n) || n < min || n > max) throw new Error(`--${flag} needs a whole number from ${min} to ${max}, got '${v}'`);
  return n;
}

function positive(flag: string, v: string, allowZero = false, max = 100): number {
  const x = Number(v);
  if (v.trim() === '' || !Number.isFinite(x) || x < 0 || (!allowZero && x === 0) || x > max) throw new Error(`--${flag} needs a ${allowZero ? 'number ≥ 0' : 'positive number'} up to ${max}, got '${v}'`);
  return x;
}

function oneOf<T extends string>(flag: string, v: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(v)) throw new Error(`--${flag} must be one of ${allowed.join(', ')}, got '${v}'`);
  return v as T;
}

export function parseLearnArgs(argv: readonly string[]): LearnArgs {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options: FLAGS, strict: true, allowPositionals: false, tokens: true });
  } catch (e) {
    throw new Error(`${e instanceof Error ? e.message : String(e)}\n${LEARN_USAGE}`);
  }
  const seen = new Set<string>();
  for (const t of parsed.tokens ?? []) {
    if (t.kind !== 'option') continue;
    if (seen.has(t.name)) throw new Error(`--${t.name} is given twice; give it once`);
    seen.add(t.name);
  }
  const v = parsed.values;
  const o: LearningOptions = { ...ROUTING_LEARNING, tasks: [...ROUTING_LEARNING.tasks] };
  const args: LearnArgs = { family: 'function-calling', options: o, seeds: [o.seed], compare: !v['no-compare'], printConfig: v['print-config'] === true, help: v.help === true, saveEvery: 25, keep: 3 };
  if (args.help) return args;
  if (v.family === undefined) throw new Error(`--family is required\n${LEARN_USAGE}`);
  args.family = oneOf('family', v.family, LEARN_FAMILIES);
  o.tasks = familyTasks(args.family);
  if (v.level !== undefined) {
    if (args.family === 'all') throw new Error('--level picks one task set of one family; with --family all the mix is fixed (route8 + service + coding)');
    const levels = TASK_SETS.filter((t) => t.family === args.family).map((t) => t.level);
    o.tasks = [{ family: args.family as TaskMixEntry['family'], level: oneOf('level', v.level, levels), weight: 1 }];
  }
  if (v.preset !== undefined) o.preset = oneOf('preset', v.preset, ['nano', 'tiny', 'small', 'nano-q', 'tiny-q'] as const);
  if (v.seed !== undefined && v.seeds !== undefined) throw new Error('give --seed or --seeds, not both');
  if (v.seed !== undefined) args.seeds = [integer('seed', v.seed, 0)];
  if (v.seeds !== undefined) {
    args.seeds = v.seeds.split(',').map((s) => integer('seeds', s, 0));
    if (new Set(args.seeds).size !== args.seeds.length) throw new Error(`--seeds ${v.seeds}: a seed is listed twice`);
  }
  o.seed = args.seeds[0];
  if (v['sft-examples'] !== undefined) o.sftExamples = integer('sft-examples', v['sft-examples'], 1);
  if (v['sft-drills'] !== undefined) o.sftDrills = integer('sft-drills', v['sft-drills'], 0);
  if (v['sft-steps'] !== undefined) o.sftSteps = integer('sft-steps', v['sft-steps'], 0);
  if (v['sft-lr'] !== undefined) o.sftLr = positive('sft-lr', v['sft-lr']);
  if (v['sft-batch'] !== undefined) o.sftBatch = integer('sft-batch', v['sft-batch'], 1);
  if (v.steps !== undefined) o.rlSteps = integer('steps', v.steps, 0);
  if (v['tasks-per-step'] !== undefined) o.tasksPerStep = integer('tasks-per-step', v['tasks-per-step'], 1);
  if (v.group !== undefined) o.groupSize = integer('group', v.group, 2);
  if (v.lr !== undefined) o.lr = positive('lr', v.lr);
  if (v.kl !== undefined) o.klCoef = positive('kl', v.kl, true);
  if (v.credit !== undefined) o.credit = oneOf<CreditScheme>('credit', v.credit, CREDIT_SCHEMES);
  if (v['sampling-rounds'] !== undefined) o.samplingRounds = integer('sampling-rounds', v['sampling-rounds'], 1);
  if (v.async !== undefined) o.staleness = integer('async', v.async, 0);
  if (v['eval-n'] !== undefined) o.evalN = integer('eval-n', v['eval-n'], 1);
  if (v['eval-split'] !== undefined) o.evalSplit = oneOf('eval-split', v['eval-split'], EVAL_SPLITS);
  if (v['eval-also'] !== undefined) {
    if (args.family === 'all') throw new Error('--eval-also names levels of one family; with --family all give none');
    const levels = TASK_SETS.filter((t) => t.family === args.family).map((t) => t.level);
    o.evalAlso = v['eval-also'].split(',').map((l) => ({ family: args.family as TaskMixEntry['family'], level: oneOf('eval-also', l, levels) }));
  }
  if (v['eval-every'] !== undefined) o.evalEvery = integer('eval-every', v['eval-every'], 0);
  if (v['eval-before']) o.evalBefore = true;
  if (v.out !== undefined) args.out = v.out;
  if (v.save !== undefined) args.save = v.save;
  if (v['save-every'] !== undefined) args.saveEvery = integer('save-every', v['save-every'], 1);
  if (v.keep !== undefined) args.keep = integer('keep', v.keep, 1, 1000);
  if ((v['save-every'] !== undefined || v.keep !== undefined) && args.save === undefined) throw new Error('--save-every and --keep need --save DIR');
  if (v.resume !== undefined) {
    args.resume = v.resume;
    if (args.seeds.length > 1) throw new Error('--resume continues one run: give one --seed');
    if (args.compare) throw new Error('--resume continues a run without the SFT-only comparison arm: add --no-compare (run the comparison in one go instead)');
  }
  return args;
}
