// `npx tsx scripts/sandboxBench.ts [N]`: cost of a Node sandbox run (one fresh process per run):
// wall time per run, latency, and CPU time of the host and of the sandbox processes, for
// sequential runs and two at a time. Linux only (reads the reaped children's CPU from /proc).
import { readFileSync } from 'node:fs';
import { NodeSandboxPool } from '../src/envs/coding/sandbox/nodeSandbox';

const TESTS = [
  { entry: 'add', args: [1, 2], expected: 3 },
  { entry: 'add', args: [2, 2], expected: 4 },
  { entry: 'add', args: [0.1, 0.2], expected: 0.3 },
];
const CODE = 'function add(a, b) { return a + b; }';

/** CPU time of this process's finished children (cutime + cstime, 10 ms ticks). */
function childrenCpuMs(): number {
  const f = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  return (Number(f[13]) + Number(f[14])) * 10;
}

const n = Number(process.argv[2] ?? 100);
for (const concurrency of [1, 2]) {
  const pool = new NodeSandboxPool({ size: 2 });
  await pool.run(CODE, TESTS); // start the pool (and its spare processes)
  const children0 = childrenCpuMs();
  const host0 = process.cpuUsage();
  const t0 = performance.now();
  const latencies: number[] = [];
  for (let i = 0; i < n; i += concurrency) {
    await Promise.all(Array.from({ length: concurrency }, async () => {
      const s = performance.now();
      const r = await pool.run(CODE, TESTS);
      if (r.passed !== TESTS.length) throw new Error(`a run failed: ${JSON.stringify(r)}`);
      latencies.push(performance.now() - s);
    }));
  }
  const wall = performance.now() - t0;
  const host = process.cpuUsage(host0);
  pool.close();
  await new Promise((r) => setTimeout(r, 500)); // let the last processes be reaped
  latencies.sort((a, b) => a - b);
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))].toFixed(1);
  console.log(`concurrency ${concurrency}: ${n} runs, ${(wall / n).toFixed(1)} ms wall/run, latency median ${q(0.5)} ms p90 ${q(0.9)} ms, CPU/run host ${((host.user + host.system) / 1000 / n).toFixed(1)} ms, sandbox processes ${((childrenCpuMs() - children0) / n).toFixed(1)} ms`);
}
