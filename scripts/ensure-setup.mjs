// Installs what `npm run demo` / `npm test` need on a fresh Debian machine, and nothing when it is
// already there: npm dependencies (from package-lock.json), Debian's chromium (headless WebGPU via
// SwiftShader) and mesa-vulkan-drivers (llvmpipe, the compatibility adapter).
// Plain Node with no dependencies: it runs before node_modules exists.
import { execSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const run = (cmd) => execSync(cmd, { stdio: 'inherit', cwd: root });
const quiet = (cmd) => {
  try { execSync(cmd, { stdio: 'ignore' }); return true; } catch { return false; }
};

function ensureNpmDeps() {
  const marker = join(root, 'node_modules', '.package-lock.json');
  const lock = join(root, 'package-lock.json');
  const stale = !existsSync(marker) || (existsSync(lock) && statSync(lock).mtimeMs > statSync(marker).mtimeMs);
  if (!stale) return;
  console.log('[setup] installing npm dependencies…');
  run(existsSync(lock) ? 'npm ci --no-audit --no-fund' : 'npm install --no-audit --no-fund');
}

function ensureDebianPackages() {
  const missing = [];
  if (!existsSync('/usr/bin/chromium')) missing.push('chromium');
  if (!quiet('dpkg -s mesa-vulkan-drivers')) missing.push('mesa-vulkan-drivers');
  if (missing.length === 0) return;
  if (!existsSync('/usr/bin/apt-get')) {
    console.error(`[setup] missing ${missing.join(', ')} and no apt-get here: install them by hand (Debian names).`);
    process.exit(1);
  }
  const sudo = process.getuid && process.getuid() !== 0 ? 'sudo ' : '';
  console.log(`[setup] installing Debian packages: ${missing.join(' ')}…`);
  run(`${sudo}apt-get update -q`);
  run(`DEBIAN_FRONTEND=noninteractive ${sudo}apt-get install -y -q ${missing.join(' ')}`);
}

ensureDebianPackages();
ensureNpmDeps();
