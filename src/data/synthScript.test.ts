// scripts/synth.ts as a user runs it: a child process writing a small dataset with the real families.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { readChatJsonl } from './chatJsonl';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const TSX = join(ROOT, 'node_modules/.bin/tsx');
const dir = mkdtempSync(join(tmpdir(), 'synth-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function synth(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(TSX, ['scripts/synth.ts', ...args], { cwd: ROOT, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: err.code ?? -1, stdout: err.stdout ?? '', stderr: err.stderr ?? '' };
  }
}

describe('npm run synth', () => {
  it('writes a file whose lines all parse, and prints the stats', async () => {
    const out = join(dir, 'a.jsonl');
    const r = await synth(['--family', 'all', '--n', '24', '--seed', '3', '--out', out]);
    expect(r.stderr).not.toMatch(/failed/);
    expect(r.code).toBe(0);
    const text = readFileSync(out, 'utf8');
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(24);
    expect(lines.every((l) => JSON.parse(l) !== null)).toBe(true);
    expect(readChatJsonl(text, out)).toHaveLength(24);
    expect(r.stdout).toMatch(/function-calling: generated \d+, accepted \d+ \(\d+\.\d%\)/);
    expect(r.stdout).toMatch(/service: generated \d+, accepted/);
    expect(r.stdout).toMatch(/coding: generated \d+, accepted/);
    expect(r.stdout).toMatch(/distinct tools used: \d+/);
    expect(r.stdout).toMatch(/turn histogram/);
    expect(r.stdout).toMatch(/wrote 24 conversations/);
    expect(readdirSync(dir).filter((f) => f.endsWith('.partial'))).toEqual([]); // written to a.jsonl.partial, then renamed
  });

  it('exits 2 with the problem and the usage on a bad flag', async () => {
    const r = await synth(['--family', 'chess', '--n', '5', '--out', join(dir, 'c.jsonl')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/synth: --family "chess" is unknown/);
    expect(r.stderr).toMatch(/usage: npm run synth/);
  });

  it('refuses an --out that is a folder, and --n past the bound, before generating anything', async () => {
    const r = await synth(['--n', '5', '--out', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/synth: --out .* is a folder; give a file name/);
    expect(r.stdout).not.toMatch(/generated/);
    const big = await synth(['--n', '1000000000', '--out', join(dir, 'big.jsonl')]);
    expect(big.code).toBe(2);
    expect(big.stderr).toMatch(/--n 1000000000 is more than the \d+ conversations one run writes/);
  });

  it('refuses an --out folder that does not exist before generating anything', async () => {
    const r = await synth(['--n', '5', '--out', join(dir, 'no-such-folder', 'x.jsonl')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/the folder of --out .* does not exist; create it or choose another path/);
  });
});
