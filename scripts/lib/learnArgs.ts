// Command line of `npm run learn -- --family function-calling [--preset nano|tiny] [--steps N] [--out metrics.jsonl] …`.

export interface LearnArgs {
  /** Environment family; only 'function-calling' (its routing set) has a learning recipe so far. */
  family: 'function-calling';
  preset: 'nano' | 'tiny';
  /** GRPO steps (default: the recipe's). */
  steps?: number;
  /** Format-only SFT steps (default: the recipe's; 0 with --load-sft). */
  sftSteps?: number;
  /** Tasks (groups) per GRPO step. */
  tasksPerStep?: number;
  /** G: samples per task. */
  group?: number;
  /** GRPO peak learning rate. */
  lr?: number;
  /** β of the KL term to the frozen reference (the SFT model); default the recipe's 0.1; 0 skips the reference forward. */
  kl?: number;
  /** Turn component credit off (plain trajectory-level credit). */
  noComponentCredit: boolean;
  /** Held-out evaluation every N GRPO steps (the held-out curve); 0 / absent: before and after only. */
  evalEvery?: number;
  /** GRPO lr at the last step as a fraction of the peak (cosine decay); default the recipe's 1 (constant). */
  minLrRatio?: number;
  /** Held-out tasks per evaluation. */
  evalN?: number;
  seed: number;
  /** JSONL of SFT and GRPO step metrics (reward-component curves); none when absent. */
  out?: string;
  /** Save the final weights (safetensors); with --steps 0 that is the SFT warm start. */
  save?: string;
  /** Resume exactly from the newest complete checkpoint in this folder (written by --save DIR). */
  resume?: string;
  /** With --save DIR: a checkpoint every N steps of each stage (and at its end); default 10. */
  saveEvery: number;
  /** With --save DIR: checkpoints kept (newest), plus the best; default 3. */
  keep: number;
  /** Start from saved weights and skip SFT. */
  loadSft?: string;
  /** Run GRPO through the async coordinator (in-process actors) with this staleness bound. */
  asyncK?: number;
  /** Skip the evaluation of the untrained model. */
  skipBefore: boolean;
  help: boolean;
}

export const LEARN_USAGE = `usage: npm run learn -- --family function-calling [options]
  --family NAME        function-calling (routing task set: the right one of four functions)
  --preset P           nano (default) or tiny
  --steps N            GRPO steps
  --sft-steps N        format-only SFT steps before GRPO
  --tasks-per-step N   tasks (groups) per GRPO step
  --group G            samples per task
  --lr X               GRPO learning rate
  --kl B               KL coefficient β to the frozen SFT model (default 0.1; 0: no reference copy)
  --no-component-credit  credit function_choice to the argument tokens too (plain GRPO credit)
  --eval-every N       held-out evaluation every N GRPO steps too (logged, and in --out)
  --min-lr-ratio R     cosine-decay the GRPO lr to R × lr by the last step (default 1: constant)
  --eval-n N           held-out tasks per evaluation
  --seed S             run seed (default 1)
  --out FILE           write SFT and GRPO step metrics as JSONL
  --save FILE          save the final weights (FILE.safetensors; --steps 0 saves the SFT warm start)
  --save DIR           checkpoints (weights, AdamW, streams, metrics) in DIR every --save-every steps
  --save-every N       steps between checkpoints (default 10; each stage's last step is saved too)
  --keep N             checkpoints kept in DIR (newest N, plus the best; default 3)
  --resume DIR         continue exactly from the newest complete checkpoint in DIR (same flags)
  --load-sft FILE      start from saved SFT weights and skip SFT
  --async K            GRPO through the async coordinator (in-process actors), staleness bound K
  --skip-before        do not evaluate the untrained model`;

export function parseLearnArgs(argv: readonly string[]): LearnArgs {
  const args: LearnArgs = { family: 'function-calling', preset: 'nano', seed: 1, skipBefore: false, noComponentCredit: false, help: false, saveEvery: 10, keep: 3 };
  let family: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].includes('=') ? (argv[i].split(/=(.*)/s, 2) as [string, string]) : [argv[i], undefined];
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined || v.startsWith('--')) throw new Error(`${flag} needs a value\n${LEARN_USAGE}`);
      return v;
    };
    const int = (min: number): number => {
      const v = value();
      const n = Number(v);
      // Digits only: Number('') is 0 and Number('1e308') an "integer" no run could reach.
      if (!/^\d+$/.test(v.trim()) || !Number.isSafeInteger(n) || n < min) throw new Error(`${flag} needs an integer ≥ ${min}, got '${v}'`);
      return n;
    };
    switch (flag) {
      case '--family': family = value(); break;
      case '--preset': {
        const p = value();
        if (p !== 'nano' && p !== 'tiny') throw new Error(`--preset must be nano or tiny, got '${p}'`);
        args.preset = p;
        break;
      }
      case '--steps': args.steps = int(0); break;
      case '--sft-steps': args.sftSteps = int(0); break;
      case '--tasks-per-step': args.tasksPerStep = int(1); break;
      case '--group': args.group = int(2); break;
      case '--eval-n': args.evalN = int(1); break;
      case '--eval-every': args.evalEvery = int(0); break;
      case '--no-component-credit': args.noComponentCredit = true; break;
      case '--seed': args.seed = int(0); break;
      case '--lr': {
        const v = value();
        const x = Number(v);
        if (!(x > 0) || !Number.isFinite(x)) throw new Error(`--lr needs a positive number, got '${v}'`);
        args.lr = x;
        break;
      }
      case '--kl': {
        const v = value();
        const x = Number(v);
        if (!(x >= 0) || !Number.isFinite(x)) throw new Error(`--kl needs a number ≥ 0, got '${v}'`);
        args.kl = x;
        break;
      }
      case '--min-lr-ratio': {
        const v = value();
        const x = Number(v);
        if (!(x >= 0 && x <= 1)) throw new Error(`--min-lr-ratio needs a number in [0, 1], got '${v}'`);
        args.minLrRatio = x;
        break;
      }
      case '--out': args.out = value(); break;
      case '--save': args.save = value(); break;
      case '--resume': args.resume = value(); break;
      case '--save-every': args.saveEvery = int(1); break;
      case '--keep': args.keep = int(1); break;
      case '--load-sft': args.loadSft = value(); break;
      case '--async': args.asyncK = int(0); break;
      case '--skip-before': args.skipBefore = true; break;
      case '--help': case '-h': args.help = true; break;
      default: throw new Error(`unknown option '${argv[i]}'\n${LEARN_USAGE}`);
    }
  }
  if (!args.help) {
    if (family === undefined) throw new Error(`--family is required\n${LEARN_USAGE}`);
    if (family !== 'function-calling') throw new Error(`--family ${family}: only function-calling has a learning recipe so far (service and coding episodes do not fit a byte-level preset's context yet)`);
  }
  return args;
}
