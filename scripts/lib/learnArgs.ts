// Command line of `npm run learn`: flags → a PipelineConfig (src/pipeline/presets.ts learningConfig)
// plus what the CLI itself does with the run (metrics file, saved weights, the SFT-only comparison,
// seeds). Parsed with Node's util.parseArgs (strict: unknown flags and missing values are errors);
// a flag given twice is refused rather than silently keeping the last.
import { parseArgs } from 'node:util';
import { ADVANTAGE_SCALES, type AdvantageScale, CREDIT_SCHEMES, type CreditScheme, EVAL_SPLITS } from '../../src/pipeline/config';
import type { TaskMixEntry } from '../../src/envs/taskMix';
import { TASK_SETS } from '../../src/envs/taskSets';
import { type LearningOptions, ROUTING_LEARNING } from '../../src/pipeline/presets';
import { weightPairs } from '../../src/pipeline/rewardWeights';
import { flagCheckers, MAX_COUNT } from '../../src/util/flagValues';

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
  /** An HF Qwen3 folder to train with LoRA (preset qwen3-0.6b) instead of a preset's seeded init. */
  model?: string;
  /** An HF folder of the preset's own shape (e.g. copy-probe --save) whose weights replace the seeded init; every weight trains. */
  init?: string;
  /** LoRA rank with --model (alpha = 2·rank, every projection). */
  loraRank: number;
  /** GPU memory the run may use (--budget-gib), checked in the memory plan before loading. */
  budgetBytes?: number;
  /** Greedy episodes of the evaluation split printed after the run (tasks 0 … K−1; 0: none). */
  samples: number;
  /** Train nothing: evaluate the starting model (--init, --model or the seeded init) with the baselines. */
  evalOnly: boolean;
  /** Print the pipeline config as JSON and exit. */
  printConfig: boolean;
  help: boolean;
}

/** LoRA rank of `--model` runs: 16 (alpha 32), a common choice for small models: 10.1 M trainable parameters on Qwen3-0.6B (1.7 % of its 596 M). */
export const DEFAULT_LORA_RANK = 16;

/** Learning rates of `--model` runs unless given: LoRA on a pretrained base wants ~10× less than training a nano model from scratch. */
export const MODEL_DEFAULTS = { sftLr: 2e-4, lr: 5e-5 } as const;

export const LEARN_USAGE = `usage: npm run learn -- --family function-calling|service|coding|all [options]
  --family F           task family: function-calling (default task set route8), service, coding, or all (a mix)
  --level L            the family's task set (default: the first): ${TASK_SETS.map((t) => `${t.family} ${t.level}`).join(', ')}
  --preset P           nano (default), tiny, small (byte tokenizer); nano-q, tiny-q (trimmed Qwen3 vocabulary: service and coding fit);
                       qwen3-0.6b only with --model (a pretrained base: there is no seeded 0.6B init worth training)
  --model DIR          a Hugging Face Qwen3 folder (config.json, model.safetensors or shards + index, tokenizer.json,
                       tokenizer_config.json): streamed into an f16 base, trained with LoRA, its own tokenizer and Qwen3's
                       chat template with full JSON tool schemas; implies --preset qwen3-0.6b. Defaults change to
                       --sft-lr ${MODEL_DEFAULTS.sftLr} and --lr ${MODEL_DEFAULTS.lr} (LoRA on a pretrained model; not tuned here)
  --lora-rank R        LoRA rank with --model (default ${DEFAULT_LORA_RANK}; alpha = 2·R, every projection of every layer)
  --budget-gib G       GPU memory the run may use: the memory plan is checked against it before loading (with --model)
  --seed S | --seeds 1,2,3   run seed(s); several seeds → mean and range in the last line
  --sft-examples N     verified expert conversations in the fixed SFT set (train split)
  --sft-drills N       copy drills mixed into the SFT set (generic echo calls of random strings)
  --sft-random-values F  share (0…1) of function-calling SFT examples whose argument values are random value-shaped
                       strings instead of train-pool values (copying instead of memorising the pool)
  --sft-wrapped-requests F  share (0…1) of function-calling SFT examples whose request is wrapped in a few words of
                       small talk ("hey, …", "… thanks": the value at new offsets)
  --sft-edited-requests F  share (0…1) of function-calling SFT examples whose request gets 1–2 word edits: a function
                       word shared by several tools' phrasings deleted or inserted, or two neighbouring words swapped
  --sft-framed-requests F  share (0…1) of function-calling SFT examples whose request is rebuilt from a generic frame
                       and a cue word of its tool ("need the forecast for {x}": only the cue tells the tool)
  --sft-drill-emails F  share (0…1) of those copy drills that are email lookups instead (the service's
                       find_user_id_by_email on customer-shaped addresses of random names); needs --sft-drills
  --sft-random-users F  share (0…1) of service SFT conversations whose customer is renamed (everywhere: user turns,
                       calls, tool outputs) to random name-shaped first and last names, so the email must be copied
                       from the user's message rather than spelled from the train names
  --sft-phrasings K    SFT demonstrates only routing requests of the first K train phrasings per tool (of 8); GRPO
                       tasks still draw all 8, so the rest are learnt from the reward alone (absent: all)
  --sft-steps N        SFT optimizer steps over that set
  --sft-lr X           SFT learning rate
  --sft-batch B        SFT rows per step
  --steps N            GRPO steps (0: an SFT-only run; the last line has "after_grpo": null)
  --tasks-per-step N   GRPO tasks (groups) per step
  --group G            samples per task
  --lr X               GRPO learning rate
  --kl B               KL coefficient β to the SFT model (0: no reference forward)
  --credit C           ${CREDIT_SCHEMES.join(' | ')} (granular-reward ablation)
  --reward-weights K=W[,K=W]  GRPO trains on these reward-component weights instead of the environment's (e.g.
                       exact_match=1,function_choice=0,arguments=0,format=0: the whole-call outcome alone); components
                       not named keep theirs; evaluation and success are unchanged
  --temperature T      GRPO rollouts sample at T (0.05–5, default 1); the trainer scores log softmax(logits / T), so
                       the ratio and KL compare the policy that sampled (evaluation stays greedy)
  --entropy-coef C     GRPO entropy bonus weight (0–1, default 0): loss −= C · token-mean entropy of the policy tokens
  --advantage std|mean GRPO advantages (r − mean) / std per group (default, GRPO/DAPO) or r − mean (Dr. GRPO)
  --random-values F    share (0…1) of GRPO's function-calling train tasks whose argument values are random value-shaped
                       strings (a right call needs copying from the request, not a memorised train value; default 0)
  --sampling-rounds R  DAPO refill rounds per step (1: drop zero-signal groups only)
  --async K            GRPO through the async coordinator, staleness bound K
  --eval-n N           test tasks per task set per evaluation
  --eval-also L[,L]    also score these task sets of the family at every before/after evaluation (e.g. bfcl-unseen-tools)
  --eval-split S       test (default: the reported figures), validation (to choose settings without looking at
                       test) or train (the seed's train tasks, which the SFT data was made from: a memorisation
                       check beside a held-out figure, never a result)
  --eval-every N       validation curve every N GRPO steps (with the SFT-only comparison: the arm's curve at
                       the same compute, and a matched-compute table)
  --eval-before        also evaluate the untrained model
  --no-compare         skip the SFT-only arm with the same extra compute
  --eval-only          train nothing: evaluate the starting model (--init DIR, --model DIR or the seeded init) on
                       --eval-split with the baselines and print --samples episodes (default 3); last line
                       {"family", "split", "n", "seed", "model", "baselines"}
  --samples K          also print K greedy episodes of the evaluation split (its first K tasks) played by the final model
  --out FILE           write step metrics, evaluations and curves as JSONL
  --save DIR           checkpoints in DIR every --save-every steps (default 25) and the final weights as an HF folder in DIR/final
                       (DIR/seed-S with several seeds); --keep N checkpoints kept (default 3, plus the best);
                       with --model: only the final LoRA adapter, as a PEFT folder in DIR/final (no checkpoints)
  --init DIR           start from the weights in DIR (config.json + model.safetensors of the --preset's shape, e.g.
                       written by npm run copy-probe -- --save DIR) instead of the seeded init; every weight trains
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
  'sft-examples': { type: 'string' }, 'sft-drills': { type: 'string' }, 'sft-random-values': { type: 'string' }, 'sft-wrapped-requests': { type: 'string' }, 'sft-edited-requests': { type: 'string' }, 'sft-framed-requests': { type: 'string' }, 'sft-random-users': { type: 'string' }, 'sft-drill-emails': { type: 'string' }, 'sft-phrasings': { type: 'string' }, 'sft-steps': { type: 'string' }, 'sft-lr': { type: 'string' }, 'sft-batch': { type: 'string' },
  steps: { type: 'string' }, 'tasks-per-step': { type: 'string' }, group: { type: 'string' }, lr: { type: 'string' }, kl: { type: 'string' },
  credit: { type: 'string' }, 'reward-weights': { type: 'string' }, temperature: { type: 'string' }, 'entropy-coef': { type: 'string' }, advantage: { type: 'string' }, 'random-values': { type: 'string' }, 'sampling-rounds': { type: 'string' }, async: { type: 'string' },
  'eval-n': { type: 'string' }, 'eval-split': { type: 'string' }, 'eval-also': { type: 'string' }, 'eval-every': { type: 'string' }, 'eval-before': { type: 'boolean' }, 'no-compare': { type: 'boolean' },
  'eval-only': { type: 'boolean' }, samples: { type: 'string' },
  out: { type: 'string' }, save: { type: 'string' }, model: { type: 'string' }, init: { type: 'string' }, 'lora-rank': { type: 'string' }, 'budget-gib': { type: 'string' }, 'save-every': { type: 'string' }, keep: { type: 'string' }, resume: { type: 'string' }, 'print-config': { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
} as const;

const { integer: int, number, oneOf } = flagCheckers();
const integer = (flag: string, v: string, min: number, max = MAX_COUNT) => int(flag, v, { min, max });
/** A positive number (or ≥ 0) up to `max`: learning rates and coefficients. */
const positive = (flag: string, v: string, allowZero = false, max = 100) => number(flag, v, allowZero ? { min: 0, max } : { positive: true, max });

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
  const args: LearnArgs = { family: 'function-calling', options: o, seeds: [o.seed], compare: !v['no-compare'], printConfig: v['print-config'] === true, help: v.help === true, saveEvery: 25, keep: 3, loraRank: DEFAULT_LORA_RANK, samples: 0, evalOnly: v['eval-only'] === true };
  if (args.help) return args;
  if (v.family === undefined) throw new Error(`--family is required\n${LEARN_USAGE}`);
  args.family = oneOf('family', v.family, LEARN_FAMILIES);
  o.tasks = familyTasks(args.family);
  if (v.level !== undefined) {
    if (args.family === 'all') throw new Error('--level picks one task set of one family; with --family all the mix is fixed (route8 + service + coding)');
    const levels = TASK_SETS.filter((t) => t.family === args.family).map((t) => t.level);
    o.tasks = [{ family: args.family as TaskMixEntry['family'], level: oneOf('level', v.level, levels), weight: 1 }];
  }
  if (v.preset !== undefined) o.preset = oneOf('preset', v.preset, ['nano', 'tiny', 'small', 'nano-q', 'tiny-q', 'qwen3-0.6b'] as const);
  modelFlags(v, args);
  if (v.seed !== undefined && v.seeds !== undefined) throw new Error('give --seed or --seeds, not both');
  if (v.seed !== undefined) args.seeds = [integer('seed', v.seed, 0)];
  if (v.seeds !== undefined) {
    args.seeds = v.seeds.split(',').map((s) => integer('seeds', s, 0));
    if (new Set(args.seeds).size !== args.seeds.length) throw new Error(`--seeds ${v.seeds}: a seed is listed twice`);
  }
  o.seed = args.seeds[0];
  if (v['sft-examples'] !== undefined) o.sftExamples = integer('sft-examples', v['sft-examples'], 1);
  if (v['sft-drills'] !== undefined) o.sftDrills = integer('sft-drills', v['sft-drills'], 0);
  if (v['sft-random-values'] !== undefined) o.sftRandomValues = positive('sft-random-values', v['sft-random-values'], true, 1);
  if (v['sft-wrapped-requests'] !== undefined) o.sftWrappedRequests = positive('sft-wrapped-requests', v['sft-wrapped-requests'], true, 1);
  if (v['sft-edited-requests'] !== undefined) o.sftEditedRequests = positive('sft-edited-requests', v['sft-edited-requests'], true, 1);
  if (v['sft-framed-requests'] !== undefined) o.sftFramedRequests = positive('sft-framed-requests', v['sft-framed-requests'], true, 1);
  if (v['sft-random-users'] !== undefined) o.sftRandomUsers = positive('sft-random-users', v['sft-random-users'], true, 1);
  if (v['sft-drill-emails'] !== undefined) o.sftDrillEmails = positive('sft-drill-emails', v['sft-drill-emails'], true, 1);
  if (v['sft-phrasings'] !== undefined) o.sftPhrasings = integer('sft-phrasings', v['sft-phrasings'], 1);
  if (v['sft-steps'] !== undefined) o.sftSteps = integer('sft-steps', v['sft-steps'], 0);
  if (v['sft-lr'] !== undefined) o.sftLr = positive('sft-lr', v['sft-lr']);
  if (v['sft-batch'] !== undefined) o.sftBatch = integer('sft-batch', v['sft-batch'], 1);
  if (v.steps !== undefined) o.rlSteps = integer('steps', v.steps, 0);
  if (v['tasks-per-step'] !== undefined) o.tasksPerStep = integer('tasks-per-step', v['tasks-per-step'], 1);
  if (v.group !== undefined) o.groupSize = integer('group', v.group, 2);
  if (v.lr !== undefined) o.lr = positive('lr', v.lr);
  if (v.kl !== undefined) o.klCoef = positive('kl', v.kl, true);
  if (v.credit !== undefined) o.credit = oneOf<CreditScheme>('credit', v.credit, CREDIT_SCHEMES);
  if (v['reward-weights'] !== undefined) o.rewardWeights = rewardWeightsFlag(v['reward-weights']);
  if (v.temperature !== undefined) o.temperature = number('temperature', v.temperature, { min: 0.05, max: 5 });
  if (v['entropy-coef'] !== undefined) o.entropyCoef = number('entropy-coef', v['entropy-coef'], { min: 0, max: 1 });
  if (v.advantage !== undefined) o.advantage = oneOf<AdvantageScale>('advantage', v.advantage, ADVANTAGE_SCALES);
  if (v['random-values'] !== undefined) o.randomValues = positive('random-values', v['random-values'], true, 1);
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
  if (v.init !== undefined) {
    if (v.init.trim() === '') throw new Error('--init needs a folder path');
    if (args.model !== undefined) throw new Error('--init starts a preset run from saved weights; --model loads a pretrained Qwen3 for LoRA: give one');
    if (v.resume !== undefined) throw new Error('--resume continues a run from its checkpoints (they hold the weights); drop --init');
    args.init = v.init;
  }
  if (v.samples !== undefined) args.samples = integer('samples', v.samples, 0, 1000);
  if (args.evalOnly) evalOnlyFlags(v, args);
  if (v.resume !== undefined) {
    if (args.model !== undefined) throw new Error('--resume continues a preset run from its checkpoints; a --model run saves no checkpoints (start it again)');
    args.resume = v.resume;
    if (args.seeds.length > 1) throw new Error('--resume continues one run: give one --seed');
    if (args.compare) throw new Error('--resume continues a run without the SFT-only comparison arm: add --no-compare (run the comparison in one go instead)');
  }
  return args;
}

/** --reward-weights exact_match=1,function_choice=0: component → weight (names are checked against the task mix when the run starts). */
function rewardWeightsFlag(text: string): Record<string, number> {
  const { pairs, bad } = weightPairs(text);
  if (bad !== undefined) throw new Error(`--reward-weights ${text}: "${bad}" is not COMPONENT=WEIGHT; write e.g. exact_match=1,function_choice=0`);
  const out: Record<string, number> = {};
  for (const [k, v] of pairs) {
    if (k in out) throw new Error(`--reward-weights ${text}: ${k} is given twice`);
    out[k] = positive('reward-weights', v, true);
  }
  return out;
}

type FlagValues = ReturnType<typeof parseArgs<{ options: typeof FLAGS; tokens: true }>>['values'];

/** Flags that shape or keep training: --eval-only refuses them (it would silently ignore them otherwise). */
const TRAINING_FLAGS = [
  'sft-examples', 'sft-drills', 'sft-random-values', 'sft-wrapped-requests', 'sft-edited-requests', 'sft-framed-requests', 'sft-random-users', 'sft-drill-emails', 'sft-phrasings', 'sft-steps', 'sft-lr', 'sft-batch', 'steps', 'tasks-per-step', 'group', 'lr', 'kl',
  'credit', 'reward-weights', 'temperature', 'entropy-coef', 'advantage', 'random-values', 'sampling-rounds', 'async', 'eval-every', 'eval-before', 'no-compare', 'save', 'save-every', 'keep', 'resume', 'lora-rank',
] as const;

/** --eval-only: one evaluation of the starting model, 3 sample episodes unless --samples says otherwise. */
function evalOnlyFlags(v: FlagValues, args: LearnArgs): void {
  const given = TRAINING_FLAGS.filter((f) => v[f] !== undefined);
  if (given.length) throw new Error(`--eval-only trains nothing, so ${given.map((f) => `--${f}`).join(', ')} would do nothing: drop ${given.length > 1 ? 'them' : 'it'}`);
  args.options.evalOnly = true;
  args.compare = false;
  if (v.samples === undefined) args.samples = 3;
}

/** --model, --lora-rank, --budget-gib, and what --model changes or refuses. */
function modelFlags(v: FlagValues, args: LearnArgs): void {
  const o = args.options;
  if (v.model === undefined) {
    if (o.preset === 'qwen3-0.6b') throw new Error('--preset qwen3-0.6b needs --model DIR (a Hugging Face Qwen3-0.6B folder): there is no seeded init of 0.6B worth training from scratch here');
    for (const f of ['lora-rank', 'budget-gib'] as const) if (v[f] !== undefined) throw new Error(`--${f} applies to --model runs (LoRA on a loaded model); give --model DIR`);
    return;
  }
  if (v.model.trim() === '') throw new Error('--model needs a folder path');
  if (v.preset !== undefined && o.preset !== 'qwen3-0.6b') throw new Error(`--model loads a Qwen3 model (preset qwen3-0.6b); --preset ${o.preset} is a seeded init: drop --preset or give --preset qwen3-0.6b`);
  args.model = v.model;
  o.preset = 'qwen3-0.6b';
  if (v['lora-rank'] !== undefined) args.loraRank = integer('lora-rank', v['lora-rank'], 1, 1024);
  if (v['budget-gib'] !== undefined) args.budgetBytes = positive('budget-gib', v['budget-gib'], false, 1_000_000) * 2 ** 30;
  if (v['sft-lr'] === undefined) o.sftLr = MODEL_DEFAULTS.sftLr;
  if (v.lr === undefined) o.lr = MODEL_DEFAULTS.lr;
  if (v.async !== undefined) throw new Error('--async runs full-parameter models; a --model run (LoRA) trains GRPO synchronously: drop --async');
  if (v['save-every'] !== undefined || v.keep !== undefined) throw new Error('--save-every and --keep are for checkpoints, which a --model run does not write (--save DIR keeps its final LoRA adapter)');
}
