// Headless Debian Chromium with real WebGPU on this machine's CPU adapters, via playwright-core
// (browser downloads are impossible here, so we launch /usr/bin/chromium; override with
// TABFORGE_CHROMIUM). Reused by `npm run bench` and meant for `npm run demo` and e2e.
//   'swiftshader': Chromium's default software adapter, core feature level (subgroups, timestamps)
//   'llvmpipe':    ANGLE on Mesa EGL (llvmpipe), Dawn's OpenGL ES backend: compatibility feature
//                  level only, so pages must request featureLevel 'compatibility' (featureLevelFor).
import { existsSync } from 'node:fs';
import { type Browser, type Page, chromium } from 'playwright-core';

export type BrowserAdapter = 'swiftshader' | 'llvmpipe';
export const BROWSER_ADAPTERS: readonly BrowserAdapter[] = ['swiftshader', 'llvmpipe'];

export const CHROMIUM_PATH = process.env.TABFORGE_CHROMIUM ?? '/usr/bin/chromium';

const BASE_ARGS = [
  '--enable-unsafe-webgpu',
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  '--disable-background-timer-throttling', // long GPU waits in a background-ish headless tab
  '--disable-renderer-backgrounding',
];

/** Chromium flags that select the adapter. */
export function chromiumArgs(adapter: BrowserAdapter): string[] {
  return adapter === 'llvmpipe' ? [...BASE_ARGS, '--use-angle=gl-egl', '--use-webgpu-adapter=opengles'] : [...BASE_ARGS];
}

/** The featureLevel a page must ask requestAdapter for on this adapter. */
export function featureLevelFor(adapter: BrowserAdapter): 'core' | 'compatibility' {
  return adapter === 'llvmpipe' ? 'compatibility' : 'core';
}

export interface LaunchOptions {
  adapter: BrowserAdapter;
  headless?: boolean;
  extraArgs?: string[];
}

export async function launchChromium(opts: LaunchOptions): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium not found at ${CHROMIUM_PATH}: run \`npm run setup\` (installs Debian's chromium) or set TABFORGE_CHROMIUM to a Chromium binary`);
  }
  // Mesa's EGL needs a platform without a display server for the llvmpipe path.
  const env = opts.adapter === 'llvmpipe' ? { ...process.env, EGL_PLATFORM: 'surfaceless' } : { ...process.env };
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: opts.headless ?? true,
    args: [...chromiumArgs(opts.adapter), ...(opts.extraArgs ?? [])],
    env: env as Record<string, string>,
  });
}

/** Echoes the page's console and uncaught errors, each line prefixed (e.g. '[llvmpipe]'). */
export function forwardConsole(page: Page, prefix: string, sink: (line: string) => void = (l) => console.log(l)): void {
  page.on('console', (m) => sink(`${prefix} ${m.text()}`));
  page.on('pageerror', (e) => sink(`${prefix} page error: ${e.message}`));
}
