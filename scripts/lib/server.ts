// Serves the pages (src/app/*.html) for headless runs: a production build served by `vite preview`
// (default), or the Vite dev server. Both on 127.0.0.1 with a free port and the COOP/COEP headers
// of vite.config.ts. Reused by `npm run bench` and meant for `npm run demo` and e2e.
import { createServer as createNetServer } from 'node:net';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, createServer, preview } from 'vite';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CONFIG_FILE = resolve(REPO_ROOT, 'vite.config.ts');
/** Headless builds go here, not to dist/, so a bench run never clobbers someone's e2e build. */
export const HEADLESS_OUT_DIR = resolve(REPO_ROOT, 'node_modules/.cache/tabforge-pages');

export interface ServerOptions {
  /** 'preview' (build, then serve the build; default) or 'dev' (Vite dev server, no build). */
  mode?: 'preview' | 'dev';
  /** Where 'preview' builds to and serves from (default HEADLESS_OUT_DIR). */
  outDir?: string;
  /** 'preview' only: serve an existing build in outDir instead of building first. */
  skipBuild?: boolean;
  /** Fixed port; default a free one. */
  port?: number;
  /** Progress lines (build start/finish). */
  log?: (line: string) => void;
}

export interface RunningServer {
  /** Base URL without a trailing slash, e.g. http://127.0.0.1:41234 */
  url: string;
  close(): Promise<void>;
}

/** A port the OS says is free right now. */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const srv = createNetServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => (port ? resolvePort(port) : reject(new Error('freePort: the OS returned no port'))));
    });
  });
}

export async function startServer(opts: ServerOptions = {}): Promise<RunningServer> {
  const log = opts.log ?? (() => {});
  const port = opts.port ?? (await freePort());
  const host = '127.0.0.1';
  if (opts.mode === 'dev') {
    const server = await createServer({ configFile: CONFIG_FILE, logLevel: 'warn', server: { port, host, strictPort: true } });
    await server.listen();
    return { url: `http://${host}:${port}`, close: () => server.close() };
  }
  const outDir = opts.outDir ?? HEADLESS_OUT_DIR;
  if (!opts.skipBuild) {
    const t0 = Date.now();
    log(`building the pages into ${outDir} …`);
    await build({ configFile: CONFIG_FILE, logLevel: 'warn', build: { outDir, emptyOutDir: true } });
    log(`built in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  const server = await preview({ configFile: CONFIG_FILE, logLevel: 'warn', build: { outDir }, preview: { port, host, strictPort: true } });
  return {
    url: `http://${host}:${port}`,
    close: () => new Promise<void>((done, fail) => server.httpServer.close((e) => (e ? fail(e) : done()))),
  };
}
