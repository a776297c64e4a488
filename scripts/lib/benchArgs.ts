// Command line of `npm run bench -- [--out FILE] [--adapter swiftshader|llvmpipe|both] [--quick] [--filter TEXT] [--swarm]`.
import { oneOfFlag, withUsage } from '../../src/util/flagValues';
import type { BrowserAdapter } from './browser';

export interface BenchArgs {
  /** JSON output path; no file when absent (the table is always printed). */
  out?: string;
  adapters: BrowserAdapter[];
  quick: boolean;
  /** Only rows whose name contains this. */
  filter?: string;
  /** The swarm section instead of the adapter rows (scripts/lib/swarmTabsBench.ts, swarmBytesBench.ts). */
  swarm: boolean;
  help: boolean;
}

export const BENCH_USAGE = `usage: npm run bench -- [--out FILE] [--adapter swiftshader|llvmpipe|both] [--quick] [--filter TEXT] [--swarm]
  --out FILE      write the results as JSON (see src/app/bench/report.ts for the shape)
  --adapter A     swiftshader (core), llvmpipe (compatibility) or both (default)
  --quick         fewer repeats per row (smoke runs)
  --filter TEXT   only rows whose name contains TEXT, e.g. --filter 1024 or --filter 'grpo throughput'
  --swarm         only the swarm section (tabs on llvmpipe: rollout tokens/s with 1-3 tabs and with a frozen
                  tab, weight broadcast over tabs and libp2p; Node: bytes per step of each training mode)`;

export function parseBenchArgs(argv: readonly string[]): BenchArgs {
  const args: BenchArgs = { adapters: ['swiftshader', 'llvmpipe'], quick: false, swarm: false, help: false };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].includes('=') ? (argv[i].split(/=(.*)/s, 2) as [string, string]) : [argv[i], undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined || v.startsWith('--')) throw new Error(`${flag} needs a value\n${BENCH_USAGE}`);
      return v;
    };
    switch (flag) {
      case '--out':
        args.out = value();
        break;
      case '--adapter': {
        const v = withUsage(BENCH_USAGE, () => oneOfFlag('adapter', value(), ['swiftshader', 'llvmpipe', 'both'] as const));
        args.adapters = v === 'both' ? ['swiftshader', 'llvmpipe'] : [v];
        break;
      }
      case '--quick':
        args.quick = true;
        break;
      case '--swarm':
        args.swarm = true;
        break;
      case '--filter':
        args.filter = value();
        break;
      case '--help':
      case '-h':
        args.help = true;
        break;
      default:
        throw new Error(`unknown argument '${argv[i]}'\n${BENCH_USAGE}`);
    }
  }
  return args;
}
