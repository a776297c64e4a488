import { defineConfig } from 'vitest/config';

// Cross-origin isolation: SharedArrayBuffer (weight publishing between workers) needs both headers.
const crossOriginIsolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

export default defineConfig({
  root: '.',
  publicDir: 'public',
  server: { headers: crossOriginIsolation, host: '127.0.0.1' },
  preview: { headers: crossOriginIsolation, host: '127.0.0.1' },
  worker: { format: 'es' },
  build: { target: 'es2022', outDir: 'dist', sourcemap: true },
  optimizeDeps: { exclude: ['onnxruntime-web'] },
  test: {
    include: ['src/**/*.test.ts', 'scripts/**/*.test.ts'],
    environment: 'node',
    // GPU tests share one SwiftShader device per file; the CPU is the bottleneck, not parallelism.
    fileParallelism: true,
    maxWorkers: 2,
    testTimeout: 120_000,
    hookTimeout: 120_000,
    env: { VK_ICD_FILENAMES: '/usr/lib/chromium/vk_swiftshader_icd.json' },
  },
});
