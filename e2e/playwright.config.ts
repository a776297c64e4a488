// Playwright e2e: the built page (vite preview) in Debian's headless Chromium with real WebGPU, on
// both CPU adapters of these machines. Browser downloads are impossible here, so executablePath
// points at /usr/bin/chromium (override with TABFORGE_CHROMIUM).
import { defineConfig } from '@playwright/test';
import { CHROMIUM_PATH, chromiumArgs } from '../scripts/lib/browser';

const PORT = Number(process.env.TABFORGE_E2E_PORT ?? 4173);
const executablePath = CHROMIUM_PATH;

export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  timeout: 300_000,
  workers: 1, // two cores and a software GPU: parallel browsers only slow each other down
  // CI retries a failed test once, and the list reporter marks it flaky: seen on a fresh clone, Chromium's
  // llvmpipe adapter request failing once ('no-adapter') and a relay join timing out once, both passing
  // on rerun. A test that fails twice still fails the run.
  retries: process.env.CI ? 1 : 0,
  reporter: [['list']],
  use: { baseURL: `http://127.0.0.1:${PORT}` },
  webServer: {
    command: `npx vite preview --port ${PORT} --strictPort`,
    cwd: '..',
    url: `http://127.0.0.1:${PORT}`,
    reuseExistingServer: false,
    timeout: 60_000,
  },
  projects: [
    {
      // SwiftShader: core feature level, subgroups and timestamp-query.
      name: 'swiftshader',
      // the swarm's specs test tabs and messages, not the adapter; async multi-turn GRPO tests the workers
      // and episodes (the adapter's kernels are page.spec's): llvmpipe (faster) only
      testIgnore: ['swarm-*.spec.ts', 'page-async-multiturn.spec.ts'],
      // the page's own behaviour (e2e/tags.ts ONE_ADAPTER: keyboard, theme, reload, tabs, Stop, a lost
      // device) does not depend on the kernels' adapter: llvmpipe only (≈ 4 min less per CI run)
      grepInvert: /@one-adapter/,
      use: { launchOptions: { executablePath, args: chromiumArgs('swiftshader') } },
      metadata: { featureLevel: 'core' },
    },
    {
      // llvmpipe through ANGLE/OpenGL ES: compatibility feature level (needs mesa-vulkan-drivers' Mesa).
      name: 'llvmpipe',
      use: {
        launchOptions: {
          executablePath,
          args: chromiumArgs('llvmpipe'),
          env: { ...process.env, EGL_PLATFORM: 'surfaceless' } as Record<string, string>,
        },
      },
      metadata: { featureLevel: 'compatibility' },
    },
  ],
});
