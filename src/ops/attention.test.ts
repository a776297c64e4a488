import { describe, expect, it } from 'vitest';
import { branchSegment } from '../data/segments';
import type { GpuRuntime } from '../gpu/runtime';
import type { Tensor } from '../gpu/tensor';
import { TEST_ADAPTERS, testRuntime } from '../gpu/testDevice';
import * as ref from '../reference/ops';
import { Rng } from '../util/rng';
import { benchAttention } from './attentionBench';
import {
  type AttentionSpec,
  type AttentionTiles,
  type AttentionVariant,
  attentionBackward,
  attentionDecode,
  attentionForward,
  attentionWorkgroupBytes,
  chooseAttentionTiles,
  chooseAttentionVariant,
} from './attention';
import { chooseRowBlock } from './attentionRow';
import { unrollLoops } from './attentionRowUnroll';

const TOL = 1e-4;

/** Every test of the op runs both kernel variants, forced, on both adapters. */
const VARIANTS: AttentionVariant[] = ['tile', 'row'];

interface Case {
  name: string;
  B: number;
  T: number;
  Hq: number;
  Hkv: number;
  D: number;
  scale?: number;
  /** Build (B, T) segment ids (document packing, negative = padding). */
  segments?: (B: number, T: number, rng: Rng) => Int32Array;
  tiles?: AttentionSpec['tiles'];
  /**
   * Row variant: rows per invocation (default chooseRowBlock: 8 at D = 24, 4 at D = 64). Compiling
   * takes seconds per (D, rows) pair on both adapters, so the D = 64 cases share 2 rows.
   */
  rowBlock?: number;
  /** Variants that take this shape (default both; the row kernels stop at D = 64). */
  variants?: AttentionVariant[];
  /**
   * Tiles used on SwiftShader only: it compiles the zero-initialisation of workgroup memory element by
   * element (~1 ms per float), so D=128's default 13 KiB tiles cost ~12 s there; opengles runs the defaults.
   */
  swiftshaderTiles?: AttentionSpec['tiles'];
}

/** Each row: 2–3 documents of random lengths, then a padded tail; one row starts with padding. */
function packedSegments(B: number, T: number, rng: Rng): Int32Array {
  const seg = new Int32Array(B * T);
  for (let b = 0; b < B; b++) {
    let id = 0;
    let left = rng.int(2, Math.max(2, T >> 2));
    for (let t = 0; t < T; t++) {
      if (left === 0) {
        id++;
        left = rng.int(2, Math.max(2, T >> 1));
      }
      seg[b * T + t] = id < 3 ? id : -1; // past the third document: padding
      left--;
    }
    if (b === 1) seg[b * T] = -1; // a padding row before a document
  }
  return seg;
}

/**
 * Each row: a document, then a prompt shared by 2–4 branches (GRPO group layout, src/data/segments.ts),
 * then padding; row 1 starts with padding.
 */
function sharedPrefixSegments(B: number, T: number, rng: Rng): Int32Array {
  const seg = new Int32Array(B * T).fill(-1);
  for (let b = 0; b < B; b++) {
    let t = b === 1 ? 1 : 0;
    const put = (id: number, n: number) => {
      for (let i = 0; i < n && t < T; i++) seg[b * T + t++] = id;
    };
    put(0, rng.int(2, 4));
    put(1, rng.int(4, 9));
    const branches = rng.int(2, 4);
    for (let j = 0; j < branches; j++) put(branchSegment(1, j), rng.int(2, 6));
  }
  return seg;
}

const SMALL_TILES: Record<'forward' | 'dq' | 'dkdv', AttentionTiles> = {
  forward: { blockQ: 4, blockK: 8, threads: 64 },
  dq: { blockQ: 8, blockK: 4, threads: 64 },
  dkdv: { blockQ: 8, blockK: 2, threads: 64 },
};

const SMALL_TILES_128: Record<'forward' | 'dq' | 'dkdv', AttentionTiles> = {
  forward: { blockQ: 4, blockK: 4, threads: 64 },
  dq: { blockQ: 4, blockK: 4, threads: 64 },
  dkdv: { blockQ: 4, blockK: 4, threads: 64 },
};

const CASES: Case[] = [
  { name: 'GQA 4 (Hq=8, Hkv=2), T=37, D=24 (row: 8 rows per invocation, a 5-row tail)', B: 2, T: 37, Hq: 8, Hkv: 2, D: 24 },
  { name: 'GQA 4, T=37, D=64, packed segments with padding (row: 2 rows)', B: 2, T: 37, Hq: 8, Hkv: 2, D: 64, segments: packedSegments, rowBlock: 2 },
  { name: 'MHA (Hq=Hkv=3), T=21, D=64, segments, scale 0.3 (row: 2 rows)', B: 2, T: 21, Hq: 3, Hkv: 3, D: 64, scale: 0.3, segments: packedSegments, rowBlock: 2 },
  { name: 'T=1, Hq=4, Hkv=1, D=24', B: 2, T: 1, Hq: 4, Hkv: 1, D: 24 },
  { name: 'D=128 (Qwen3-0.6B head), T=19, Hq=2, Hkv=1', B: 2, T: 19, Hq: 2, Hkv: 1, D: 128, segments: packedSegments, swiftshaderTiles: SMALL_TILES_128, variants: ['tile'] },
  { name: 'shared prefixes: a prompt with 2–4 branches after a document, T=37, D=24, padding', B: 2, T: 37, Hq: 4, Hkv: 2, D: 24, segments: sharedPrefixSegments },
  {
    name: 'shared prefixes, uneven blocks (tile: 4×8 fwd, 8×4 dq, 8×2 dkdv; row: 3 rows), T=29, D=24',
    B: 2, T: 29, Hq: 4, Hkv: 2, D: 24, segments: sharedPrefixSegments, tiles: SMALL_TILES, rowBlock: 3,
  },
  {
    name: 'uneven blocks (tile: 4×8 fwd, 8×4 dq, 8×2 dkdv; row: 3 rows), T=29, D=24, segments',
    B: 2, T: 29, Hq: 4, Hkv: 2, D: 24, segments: packedSegments, tiles: SMALL_TILES, rowBlock: 3,
  },
];

function randn(rng: Rng, n: number): Float64Array {
  return ref.randn64(rng, n);
}

const f32 = (x: Float64Array) => new Float32Array(x);

async function readAll(rt: GpuRuntime, ts: Tensor[]): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for (const t of ts) out.push(await rt.readF32(t));
  return out;
}

describe.each(TEST_ADAPTERS)('attention on %s', (adapter) => {
  for (const c of CASES) {
    for (const variant of c.variants ?? VARIANTS) {
      it(`${variant}: forward (out, lse) and backward (dq, dk, dv) match the float64 reference, rel err ≤ ${TOL}: ${c.name}`, async () => {
        const rt = await testRuntime(adapter);
        const rng = new Rng(1000 + CASES.indexOf(c));
        const { B, T, Hq, Hkv, D } = c;
        const q = randn(rng, B * T * Hq * D);
        const k = randn(rng, B * T * Hkv * D);
        const v = randn(rng, B * T * Hkv * D);
        const dout = randn(rng, B * T * Hq * D);
        const seg = c.segments?.(B, T, rng);
        if (seg) {
          expect(seg.some((x) => x < 0), 'the case has padding').toBe(true);
          expect(seg.some((x) => x > 0), 'the case packs several documents').toBe(true);
        }
        const refSpec: ref.AttentionSpec = { B, T, Hq, Hkv, D, scale: c.scale, segments: seg };
        const want = ref.attentionForward(q, k, v, refSpec);
        const wantGrad = ref.attentionBackward(dout, q, k, v, want.out, want.lse, refSpec);

        const gq = rt.upload(f32(q), [B, T, Hq, D], 'f32', 'q');
        const gk = rt.upload(f32(k), [B, T, Hkv, D], 'f32', 'k');
        const gv = rt.upload(f32(v), [B, T, Hkv, D], 'f32', 'v');
        const gdout = rt.upload(f32(dout), [B, T, Hq, D], 'f32', 'dout');
        const gseg = seg ? rt.upload(seg, [B, T], 'i32', 'segments') : undefined;
        const tiles = variant === 'tile' ? (adapter === 'swiftshader' && c.swiftshaderTiles) || c.tiles : undefined;
        const rowBlock = variant === 'row' ? c.rowBlock : undefined;
        const spec: AttentionSpec = { B, T, Hq, Hkv, D, scale: c.scale, segments: gseg, variant, tiles, rowBlock };
        const { out, lse } = attentionForward(rt, gq, gk, gv, spec);
        const { dq, dk, dv } = attentionBackward(rt, gdout, gq, gk, gv, out, lse, spec);
        const [gOut, gLse, gDq, gDk, gDv] = await readAll(rt, [out, lse, dq, dk, dv]);
        await rt.sync();

        expect(ref.relativeError(gOut, want.out), 'out').toBeLessThanOrEqual(TOL);
        expect(ref.relativeError(gLse, want.lse), 'lse').toBeLessThanOrEqual(TOL);
        expect(ref.relativeError(gDq, wantGrad.dq), 'dq').toBeLessThanOrEqual(TOL);
        expect(ref.relativeError(gDk, wantGrad.dk), 'dk').toBeLessThanOrEqual(TOL);
        expect(ref.relativeError(gDv, wantGrad.dv), 'dv').toBeLessThanOrEqual(TOL);
        if (seg) {
          // padding rows: exactly zero output, lse and query gradient
          for (let b = 0; b < B; b++) {
            for (let t = 0; t < T; t++) {
              if (seg[b * T + t] >= 0) continue;
              for (let h = 0; h < Hq; h++) expect(gLse[(b * Hq + h) * T + t]).toBe(0);
              const o = (b * T + t) * Hq * D;
              expect(gOut.subarray(o, o + Hq * D).every((x) => x === 0)).toBe(true);
              expect(gDq.subarray(o, o + Hq * D).every((x) => x === 0)).toBe(true);
            }
          }
        }
        rt.release(gq, gk, gv, gdout, gseg, out, lse, dq, dk, dv);
      });
    }
  }

  for (const variant of VARIANTS) {
    it(`${variant}: decode: new rows against a KV cache equal the last rows of the full forward, rel err ≤ ${TOL} (per-row and uniform pastLen)`, async () => {
      const rt = await testRuntime(adapter);
      const rng = new Rng(77);
      const B = 2;
      const Hq = 4;
      const Hkv = 2;
      const D = 32;
      const Tmax = 24;
      const Tq = 3;
      const kCache = new Float32Array(B * Tmax * Hkv * D).fill(Number.NaN); // unwritten rows must never be read
      const vCache = new Float32Array(B * Tmax * Hkv * D).fill(Number.NaN);
      const qNew = new Float32Array(B * Tq * Hq * D);
      const perRowPast = [6, 17];
      const wantOut: Float64Array[] = [];
      const wantLse: Float64Array[] = [];
      for (let b = 0; b < B; b++) {
        const L = perRowPast[b] + Tq;
        const q = randn(rng, L * Hq * D);
        const k = randn(rng, L * Hkv * D);
        const v = randn(rng, L * Hkv * D);
        const r = ref.attentionForward(q, k, v, { B: 1, T: L, Hq, Hkv, D });
        kCache.set(k, b * Tmax * Hkv * D);
        vCache.set(v, b * Tmax * Hkv * D);
        qNew.set(q.subarray((L - Tq) * Hq * D), b * Tq * Hq * D);
        wantOut.push(r.out.subarray((L - Tq) * Hq * D));
        const lse = new Float64Array(Hq * Tq); // (Hq, Tq) rows of the last Tq positions
        for (let h = 0; h < Hq; h++) for (let t = 0; t < Tq; t++) lse[h * Tq + t] = r.lse[h * L + L - Tq + t];
        wantLse.push(lse);
      }
      const gq = rt.upload(qNew, [B, Tq, Hq, D], 'f32', 'q');
      const gk = rt.upload(kCache, [B, Tmax, Hkv, D], 'f32', 'kCache');
      const gv = rt.upload(vCache, [B, Tmax, Hkv, D], 'f32', 'vCache');
      const past = rt.upload(new Int32Array(perRowPast), [B], 'i32', 'pastLen');
      const { out, lse } = attentionDecode(rt, gq, gk, gv, { B, Tq, Tmax, Hq, Hkv, D, pastLen: past, variant });
      const gOut = await rt.readF32(out);
      const gLse = await rt.readF32(lse);
      const row = Tq * Hq * D;
      for (let b = 0; b < B; b++) {
        expect(ref.relativeError(gOut.subarray(b * row, (b + 1) * row), wantOut[b]), `out row ${b}`).toBeLessThanOrEqual(TOL);
        expect(ref.relativeError(gLse.subarray(b * Hq * Tq, (b + 1) * Hq * Tq), wantLse[b]), `lse row ${b}`).toBeLessThanOrEqual(TOL);
      }

      // uniform pastLen (one new token): batch row 0 with pastLen 6 + 2 = 8 keys
      const one = rt.upload(qNew.subarray(2 * Hq * D, 3 * Hq * D).slice(), [1, 1, Hq, D], 'f32', 'q1');
      const k0 = rt.upload(kCache.subarray(0, Tmax * Hkv * D).slice(), [1, Tmax, Hkv, D], 'f32', 'k0');
      const v0 = rt.upload(vCache.subarray(0, Tmax * Hkv * D).slice(), [1, Tmax, Hkv, D], 'f32', 'v0');
      const r1 = attentionDecode(rt, one, k0, v0, { B: 1, Tq: 1, Tmax, Hq, Hkv, D, pastLen: 8, variant });
      const o1 = await rt.readF32(r1.out);
      await rt.sync();
      const want1 = new Float64Array(Hq * D);
      want1.set(wantOut[0].subarray(2 * Hq * D, 3 * Hq * D));
      expect(ref.relativeError(o1, want1), 'uniform pastLen').toBeLessThanOrEqual(TOL);
      rt.release(gq, gk, gv, past, out, lse, one, k0, v0, r1.out, r1.lse);
    });
  }

  it('runs the row kernels by default here (CPU adapter, D ≤ 64) and the tile kernels at D = 128', async () => {
    const rt = await testRuntime(adapter);
    expect(chooseAttentionVariant(rt.ctx, 24)).toBe('row');
    expect(chooseAttentionVariant(rt.ctx, 64)).toBe('row');
    expect(chooseAttentionVariant(rt.ctx, 128)).toBe('tile');
  });

  it('benchAttention times forward + backward of either variant and returns a positive mean', async () => {
    const rt = await testRuntime(adapter);
    for (const variant of VARIANTS) {
      const ms = await benchAttention(rt, { B: 1, T: 8, Hq: 2, Hkv: 1, D: 24, iters: 1, packed: true, variant });
      expect(ms).toBeGreaterThan(0);
      expect(Number.isFinite(ms)).toBe(true);
    }
  });

  it('rejects bad shapes and specs with messages that say what to do', async () => {
    const rt = await testRuntime(adapter);
    const q = rt.zeros([1, 4, 6, 8]);
    const k = rt.zeros([1, 4, 4, 8]);
    expect(() => attentionForward(rt, q, k, k, { B: 1, T: 4, Hq: 6, Hkv: 4, D: 8 })).toThrow(/Hkv = 4 must divide Hq = 6/);
    expect(() => attentionForward(rt, q, k, k, { B: 1, T: 4, Hq: 6, Hkv: 3, D: 8 })).toThrow(/k must have shape \(B, T, Hkv, D\) = \[1, 4, 3, 8\], got \[1, 4, 4, 8\]/);
    const seg = rt.zeros([1, 4], 'f32');
    expect(() => attentionForward(rt, q, k, k, { B: 1, T: 4, Hq: 6, Hkv: 2, D: 8, segments: seg })).toThrow(/segments must be i32/);
    const badTiles = { forward: { blockQ: 32, blockK: 8, threads: 16 } };
    expect(() => attentionForward(rt, q, q, q, { B: 1, T: 4, Hq: 6, Hkv: 6, D: 8, tiles: badTiles })).toThrow(/threads ≥ both tile sides/);
    expect(() => attentionDecode(rt, q, q, q, { B: 1, Tq: 4, Tmax: 4, Hq: 6, Hkv: 6, D: 8, pastLen: 1 })).toThrow(/exceed the cache capacity Tmax = 4: allocate a longer KV cache/);
    const q6 = rt.zeros([1, 4, 2, 6]);
    expect(() => attentionForward(rt, q6, q6, q6, { B: 1, T: 4, Hq: 2, Hkv: 2, D: 6, variant: 'row' })).toThrow(/row kernels need a head dim D that is a multiple of 4 and ≤ 64, got D = 6: use variant 'tile'/);
    expect(() => attentionForward(rt, q, q, q, { B: 1, T: 4, Hq: 6, Hkv: 6, D: 8, variant: 'row', rowBlock: 0 })).toThrow(/rowBlock = 0 must be an integer from 1 to 8/);
    await rt.sync();
    rt.release(q, k, seg, q6);
  });
});

describe('attention tile choice', () => {
  const compat = { maxComputeWorkgroupStorageSize: 16384, maxComputeInvocationsPerWorkgroup: 256 };
  it('fits 16 KiB of workgroup memory for every preset head dim, and uses more when the device has it', () => {
    for (const D of [24, 32, 64, 128]) {
      for (const kernel of ['forward', 'dq', 'dkdv'] as const) {
        const t = chooseAttentionTiles(kernel, D, compat);
        expect(attentionWorkgroupBytes(kernel, t.blockQ, t.blockK, D)).toBeLessThanOrEqual(16384);
        expect(t.blockQ * t.blockK).toBeGreaterThanOrEqual(32);
      }
    }
    expect(chooseAttentionTiles('forward', 128, compat)).toEqual({ blockQ: 16, blockK: 8, threads: 64 });
    const big = chooseAttentionTiles('forward', 128, { ...compat, maxComputeWorkgroupStorageSize: 32768 });
    expect(big.blockQ * big.blockK).toBeGreaterThan(16 * 8);
  });

  it('caps the query side for decode and names the limit when D cannot fit', () => {
    expect(chooseAttentionTiles('forward', 64, compat, 1).blockQ).toBe(1);
    expect(() => chooseAttentionTiles('dkdv', 4096, compat)).toThrow(/D = 4096 needs \d+ bytes of workgroup memory.*allows 16384/);
  });
});

describe('attention variant and row-block choice', () => {
  const info = (description: string) => ({ adapterInfo: { vendor: '', architecture: '', device: '', description } });
  it('row kernels on CPU adapters for D a multiple of 4 up to 64, tile kernels on GPUs and otherwise', () => {
    expect(chooseAttentionVariant(info('SwiftShader Device (Subzero)'), 24)).toBe('row');
    expect(chooseAttentionVariant(info('llvmpipe (LLVM 15.0.6, 256 bits)'), 64)).toBe('row');
    expect(chooseAttentionVariant(info('llvmpipe (LLVM 15.0.6, 256 bits)'), 128)).toBe('tile');
    expect(chooseAttentionVariant(info('SwiftShader Device (Subzero)'), 26)).toBe('tile');
    expect(chooseAttentionVariant(info('NVIDIA GeForce RTX 4090'), 24)).toBe('tile');
    // Chromium's OpenGL ES adapter (llvmpipe here) reports no info at all, only compatibility.
    expect(chooseAttentionVariant({ ...info(''), featureLevel: 'compatibility' }, 24)).toBe('row');
    expect(chooseAttentionVariant({ ...info(''), featureLevel: 'core' }, 24)).toBe('tile');
  });

  it('8 rows per invocation at D ≤ 32, 4 at D = 64, never more than the rows there are', () => {
    expect(chooseRowBlock(24, 512)).toBe(8);
    expect(chooseRowBlock(32, 512)).toBe(8);
    expect(chooseRowBlock(64, 512)).toBe(4);
    expect(chooseRowBlock(24, 1)).toBe(1);
    expect(chooseRowBlock(24, 3)).toBe(4);
  });
});

describe('unrollLoops', () => {
  it('repeats bodies of loops over the named bounds with the index as a literal, nested, each copy in its own block', () => {
    const code = 'for (var r = 0u; r < ROWS; r++) { let x = a[r]; for (var d = 0u; d < D4; d++) { acc[r * D4 + d] += x; } }';
    expect(unrollLoops(code, { ROWS: 2, D4: 2 })).toBe(
      '{ let x = a[0u]; { acc[0u * D4 + 0u] += x; } { acc[0u * D4 + 1u] += x; } } ' +
        '{ let x = a[1u]; { acc[1u * D4 + 0u] += x; } { acc[1u * D4 + 1u] += x; } }',
    );
  });

  it('leaves other loops alone and refuses bodies that break or continue', () => {
    const other = 'for (var s = params.loop_start; s < n; s++) { f(s); } for (var r = 0u; r < SETUP_ROWS; r++) { g(r); }';
    expect(unrollLoops(other, { ROWS: 4 })).toBe(other);
    expect(() => unrollLoops('for (var r = 0u; r < ROWS; r++) { if (x) { break; } }', { ROWS: 2 })).toThrow(/uses break\/continue/);
  });
});
