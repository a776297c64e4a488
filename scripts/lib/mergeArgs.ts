// Command line of `npm run merge -- --method M --base DIR --models DIR… [--weights W…] … --out DIR`.
import { MERGE_METHODS } from '../../src/train/merge/methods';
import { numberFlag, oneOfFlag } from '../../src/util/flagValues';

export interface MergeArgs {
  method: string;
  base?: string;
  models: string[];
  weights?: number[];
  density?: number;
  seed?: number;
  lambda?: number;
  t?: number;
  epsilon?: number;
  dtype: 'F32' | 'F16' | 'BF16';
  /** Adapters in, adapter out (linear / task arithmetic only: the exact rank-Σr "cat" adapter). */
  asAdapter: boolean;
  out: string;
  help: boolean;
}

export const MERGE_USAGE = `usage: npm run merge -- --method M --base DIR --models DIR… --out DIR [options]
  --method M        ${Object.values(MERGE_METHODS).filter((m) => !m.needsImportance).map((m) => `${m.name} (${m.summary})`).join('\n                    ')}
                    (fisher needs task data: a pipeline merge stage or npm run merge-table)
  --base DIR        the common base model (HF folder: config.json + model.safetensors)
  --models DIR…     fine-tuned models: HF folders, or PEFT LoRA folders of --base (adapter_config.json)
  --weights W…      one weight per model (default 1 each)
  --density D       fraction of each task vector kept (ties default 1, dare-* default 0.5)
  --seed S          seed of DARE's random drops (default 0)
  --lambda L        scale of the merged task vector (default 1)
  --t T             SLERP factor in [0, 1] (default 0.5)
  --epsilon E       RAM: |update| ≤ E counts as unchanged (default 1e-5)
  --dtype D         F32 (default), BF16 or F16 for model.safetensors
  --as-adapter      with PEFT inputs and linear / task-arithmetic: write one exact PEFT adapter
  --out DIR         output folder (HF layout, or PEFT with --as-adapter)`;

const DTYPES = ['F32', 'F16', 'BF16'] as const;

export function parseMergeArgs(argv: string[]): MergeArgs {
  const a: Partial<MergeArgs> & { models: string[] } = { models: [], dtype: 'F32', asAdapter: false, help: false };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const values = () => {
      const out: string[] = [];
      while (i + 1 < argv.length && !argv[i + 1].startsWith('--')) out.push(argv[++i]);
      if (out.length === 0) throw new Error(`${flag} needs at least one value`);
      return out;
    };
    const one = () => {
      const v = argv[++i];
      if (v === undefined || v.startsWith('--')) throw new Error(`${flag} needs a value`);
      return v;
    };
    const num = () => numberFlag(flag.slice(2), one());
    switch (flag) {
      case '--method': a.method = one(); break;
      case '--base': a.base = one(); break;
      case '--models': a.models.push(...values()); break;
      case '--weights': a.weights = values().map((v) => numberFlag('weights', v)); break;
      case '--density': a.density = num(); break;
      case '--seed': a.seed = num(); break;
      case '--lambda': a.lambda = num(); break;
      case '--t': a.t = num(); break;
      case '--epsilon': a.epsilon = num(); break;
      case '--dtype': a.dtype = oneOfFlag('dtype', one().toUpperCase(), DTYPES); break;
      case '--as-adapter': a.asAdapter = true; break;
      case '--out': a.out = one(); break;
      case '--help': case '-h': a.help = true; break;
      default: throw new Error(`unknown option '${flag}'`);
    }
  }
  if (a.help) return { ...a, method: a.method ?? '', out: a.out ?? '', help: true } as MergeArgs;
  if (!a.method) throw new Error('--method is required');
  if (!MERGE_METHODS[a.method]) throw new Error(`--method '${a.method}' is unknown; choose one of ${Object.keys(MERGE_METHODS).join(', ')}`);
  if (MERGE_METHODS[a.method].needsImportance) throw new Error(`--method ${a.method} weighs each model by its diagonal Fisher on its own task data, computed on the GPU; npm run merge has no task data: use ${a.method} in a pipeline merge stage (the page, npm run learn) or npm run merge-table, or choose another method`);
  if (a.models.length === 0) throw new Error('--models needs at least one folder');
  if (!a.out) throw new Error('--out is required');
  return a as MergeArgs;
}
