// Playwright e2e: the built page (vite preview) in Debian's headless Chromium with real WebGPU, on
// both CPU adapters of these machines. Browser downloads are impossible here, so executablePath
// points at /usr/bin/chromium (override with TABFORGE_CHROMIUM).
import { defineConfig } from '@playwright/test';

const PORT = Number(process.env.TABFORGE_E2E_PORT ?? 4173);
const executablePath = process.env.TABFORGE_CHROMIUM ?? '/usr/bin/chromium';
const baseArgs = [
  '--enable-unsafe-webgpu',
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  timeout: 300_000,
  workers: 1, // two cores and a software GPU: parallel browsers only slow each other down
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
      use: { launchOptions: { executablePath, args: baseArgs } },
      metadata: { featureLevel: 'core' },
    },
    {
      // llvmpipe through ANGLE/OpenGL ES: compatibility feature level (needs mesa-vulkan-drivers' Mesa).
      name: 'llvmpipe',
      use: {
        launchOptions: {
          executablePath,
          args: [...baseArgs, '--use-angle=gl-egl', '--use-webgpu-adapter=opengles'],
          env: { ...process.env, EGL_PLATFORM: 'surfaceless' } as Record<string, string>,
        },
      },
      metadata: { featureLevel: 'compatibility' },
    },
  ],
});
