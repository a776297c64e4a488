// Bench registry, timing loop and report formatting, with fake participants (no GPU, no browser).
import { describe, expect, it } from 'vitest';
import type { GpuRuntime } from '../../gpu/runtime';
import { type BenchCase, type PeerContext, median, registerBench, registeredBenches, repeatsFor, runBench } from './registry';
import { type BenchReport, formatTable, ratioVsTfjs, toBenchFile } from './report';

const rt = {} as GpuRuntime; // the fakes never touch it
const noPeers: PeerContext = { unavailable: {}, libs: {} };

/** A participant returning the given samples in turn (the first one is the warm-up). */
function sequence(values: number[]) {
  let i = 0;
  return async () => values[Math.min(i++, values.length - 1)];
}

describe('bench registry', () => {
  it('median and repeat budgets', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(repeatsFor(10, false)).toBe(7); // fast rows: the maximum
    expect(repeatsFor(60_000, false)).toBe(3); // slow rows: the minimum
    expect(repeatsFor(60_000, true)).toBe(1);
    expect(repeatsFor(500, true)).toBe(3);
  });

  it('reports medians after a discarded warm-up, and every peer failure as null with its reason', async () => {
    const c: BenchCase = {
      name: 'fake 1',
      unit: 'GFLOP/s',
      run: sequence([100, 1, 3, 2, 5, 4, 6, 7]), // warm-up 100 is discarded
      peers: {
        'tfjs-webgpu': sequence([9, 2, 2, 2, 2, 2, 2, 2]),
        'ort-webgpu': async () => {
          throw new Error('EP cannot run here');
        },
      },
    };
    const r = await runBench(rt, c, noPeers, { quick: false });
    expect(r.samples).toBe(7);
    expect(r.value).toBe(4); // median of 1, 3, 2, 5, 4, 6, 7
    expect(r.peers['tfjs-webgpu']).toBe(2);
    expect(r.peers['ort-webgpu']).toBeNull();
    expect(r.peerErrors?.['ort-webgpu']).toMatch(/warm-up failed: EP cannot run here/);
    expect(ratioVsTfjs(r)).toBe(2);
    expect(ratioVsTfjs({ ...r, unit: 'ms' })).toBe(0.5); // times: 4 ms vs 2 ms is half the speed
  });

  it('marks peers that have no version of a row or could not start', async () => {
    const c: BenchCase = { name: 'fake 2', unit: 'ms', run: sequence([1]) };
    const r = await runBench(rt, c, { unavailable: { 'ort-webgpu': 'ORT did not start' }, libs: {} }, { quick: true });
    expect(r.peers).toEqual({ 'tfjs-webgpu': null, 'ort-webgpu': null });
    expect(r.peerErrors).toEqual({ 'tfjs-webgpu': 'no peer version of this benchmark', 'ort-webgpu': 'no peer version of this benchmark' });
    const withPeer = await runBench(rt, { ...c, peers: { 'ort-webgpu': sequence([1]) } }, { unavailable: { 'ort-webgpu': 'ORT did not start' }, libs: {} }, { quick: true });
    expect(withPeer.peerErrors?.['ort-webgpu']).toBe('ORT did not start');
  });

  it('keeps ours as null with the error when our kernel throws', async () => {
    const r = await runBench(rt, { name: 'fake 3', unit: 'GFLOP/s', run: () => Promise.reject(new Error('wrong result, not timed')) }, noPeers, { quick: true });
    expect(r.value).toBeNull();
    expect(r.error).toMatch(/wrong result/);
    expect(ratioVsTfjs(r)).toBeNull();
  });

  it('calls a `once` row exactly once (it warms up itself) and keeps its note', async () => {
    let calls = 0;
    const c: BenchCase = { name: 'fake once', unit: 'tokens/s', once: true, run: async (_rt, o) => (calls++, o.quick ? 1 : 2), note: () => 'settings' };
    const r = await runBench(rt, c, noPeers, { quick: false });
    expect([calls, r.samples, r.value, r.note]).toEqual([1, 1, 2, 'settings']);
    const failed = await runBench(rt, { ...c, run: () => Promise.reject(new Error('pool could not start')) }, noPeers);
    expect([failed.value, failed.error, failed.note]).toEqual([null, 'pool could not start', 'settings']);
    expect(formatTable({ adapter: { kind: 'x', description: 'x', featureLevel: 'core', vendor: '', architecture: '' }, results: [r] })).toContain('note — fake once: settings');
  });

  it('refuses two rows with one name', () => {
    registerBench({ name: 'unique row for the test', unit: 'ms', run: sequence([1]) });
    expect(registeredBenches().some((b) => b.name === 'unique row for the test')).toBe(true);
    expect(() => registerBench({ name: 'unique row for the test', unit: 'ms', run: sequence([1]) })).toThrow(/already registered/);
  });
});

describe('bench report', () => {
  const adapter = { kind: 'swiftshader', description: 'SwiftShader core', featureLevel: 'core' as const, vendor: 'google', architecture: 'swiftshader' };
  const report: BenchReport = {
    adapter,
    results: [
      { name: 'matmul 1024x1024x1024', unit: 'GFLOP/s', value: 1.5, peers: { 'tfjs-webgpu': 0.3, 'ort-webgpu': null }, peerErrors: { 'ort-webgpu': 'EP failed' }, samples: 3 },
      { name: 'matmul 256x256x256', unit: 'GFLOP/s', value: 2, peers: { 'tfjs-webgpu': null, 'ort-webgpu': null }, peerErrors: { 'tfjs-webgpu': 'boom', 'ort-webgpu': 'EP failed' }, samples: 3 },
    ],
  };

  it('prints one aligned row per result, the ratio vs tfjs, and each null reason once', () => {
    const text = formatTable(report);
    const lines = text.split('\n');
    expect(lines[0]).toBe('adapter: swiftshader — SwiftShader core');
    expect(lines[1]).toMatch(/^name\s+unit\s+ours\s+tfjs-webgpu\s+ort-webgpu\s+speed vs tfjs$/);
    expect(lines[3]).toMatch(/^matmul 1024x1024x1024\s+GFLOP\/s\s+1\.50\s+0\.300\s+null\s+5\.00×$/);
    expect(lines[4]).toMatch(/^matmul 256x256x256\s+GFLOP\/s\s+2\.00\s+null\s+null\s+-$/);
    expect(lines[3].indexOf('GFLOP/s')).toBe(lines[4].indexOf('GFLOP/s'));
    expect(text).toContain('null — ort-webgpu: EP failed (all rows)');
    expect(text).toContain('null — tfjs-webgpu: boom (matmul 256x256x256)');
  });

  it('writes the required top-level shape for one adapter and tags rows per adapter for two', () => {
    const one = toBenchFile([report], { quick: true });
    expect(Object.keys(one)).toEqual(['adapter', 'results', 'meta']);
    expect(one.adapter).toEqual(adapter);
    expect(one.results[0]).toMatchObject({ name: 'matmul 1024x1024x1024', unit: 'GFLOP/s', value: 1.5, peers: { 'tfjs-webgpu': 0.3, 'ort-webgpu': null }, adapter: 'swiftshader' });
    const llvm = { ...report, adapter: { ...adapter, kind: 'llvmpipe', featureLevel: 'compatibility' as const } };
    const both = toBenchFile([report, llvm]);
    expect(both.adapter).toEqual({ kind: 'both', adapters: [report.adapter, llvm.adapter] });
    expect(both.results.map((r) => `${r.adapter}: ${r.name}`)).toEqual([
      'swiftshader: matmul 1024x1024x1024', 'swiftshader: matmul 256x256x256', 'llvmpipe: matmul 1024x1024x1024', 'llvmpipe: matmul 256x256x256',
    ]);
    expect(JSON.parse(JSON.stringify(both))).toEqual(both); // plain JSON, nulls kept
    expect(() => toBenchFile([])).toThrow(/no adapter reports/);
  });
});
