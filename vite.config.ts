import { readdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { defineConfig } from 'vitest/config';

/** Every src/app/*.html is a page of the build (index, bench, …). */
function pages(): Record<string, string> {
  const dir = resolve(dirname(fileURLToPath(import.meta.url)), 'src/app');
  return Object.fromEntries(readdirSync(dir).filter((f) => f.endsWith('.html')).map((f) => [f.replace(/\.html$/, ''), resolve(dir, f)]));
}

// Cross-origin isolation: SharedArrayBuffer (weight publishing between workers) needs both headers.
const crossOriginIsolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

const here = dirname(fileURLToPath(import.meta.url));

/**
 * The long files (minutes each on these 2 cores; measured durations in the CI log) start first, longest
 * first, so the rest of the suite runs beside them instead of one of them running alone at the end. The
 * old rule matched /Learning\.test\.ts$/ only, which missed src/pipeline/learning.test.ts (14 min): it ran
 * last, alone, adding ≈ 4 min to the CI run.
 */
const LONG_FIRST = [
  /src\/pipeline\/learning\.test\.ts$/, // ≈ 840 s
  /src\/train\/sft\/sftLearning\.test\.ts$/, // ≈ 690 s
  /src\/train\/rl\/grpoFixedTask\.test\.ts$/, // ≈ 250 s
  /src\/envs\/coding\/env\.test\.ts$/, // ≈ 120 s
  /[Ll]earning\.test\.ts$/, // any other learning test
];

class LongFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = LONG_FIRST.findIndex((re) => re.test(f.moduleId));
      return i < 0 ? LONG_FIRST.length : i;
    };
    // Array.prototype.sort is stable: files of equal rank keep the base order.
    return [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}

// Pages live in src/app (the design fixes the top level); each page is an entry of the build.
export default defineConfig({
  root: resolve(here, 'src/app'),
  publicDir: resolve(here, 'public'),
  server: { headers: crossOriginIsolation, host: '127.0.0.1' },
  preview: { headers: crossOriginIsolation, host: '127.0.0.1' },
  worker: { format: 'es' },
  build: {
    target: 'es2022',
    outDir: resolve(here, 'dist'),
    emptyOutDir: true,
    sourcemap: true,
    rollupOptions: { input: pages() },
  },
  optimizeDeps: { exclude: ['onnxruntime-web'] },
  test: {
    root: here,
    include: ['src/**/*.test.ts', 'scripts/**/*.test.ts'],
    environment: 'node',
    // GPU tests share one SwiftShader device per file; the CPU is the bottleneck, not parallelism.
    fileParallelism: true,
    maxWorkers: 2,
    testTimeout: 120_000,
    sequence: { sequencer: LongFirst },
    hookTimeout: 120_000,
    env: { VK_ICD_FILENAMES: '/usr/lib/chromium/vk_swiftshader_icd.json' },
  },
});
