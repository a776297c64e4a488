import { describe, expect, it } from 'vitest';
import { TEST_ADAPTERS, testRuntime } from '../gpu/testDevice';
import * as ref from '../reference/ops';
import { Rng } from '../util/rng';
import { ropeBackward, ropeForward } from './rope';
import { errorVs, randF32as64, upload64, uploadI32 } from './testUtil';

const TOL = 1e-4;

describe.each(TEST_ADAPTERS)('rope on %s', (adapter) => {
  it.each([
    [1, 1, 1, 8, 10000, 0],
    [2, 37, 4, 24, 10000, 0],
    [2, 5, 2, 128, 1e6, 30000], // Qwen3-0.6B θ and head dim at a large position offset
  ])(`forward and backward (B=%i, T=%i, H=%i, D=%i, θ=%d, offset=%i), rel err ≤ ${TOL}`, async (B, T, H, D, theta, offset) => {
    const rt = await testRuntime(adapter);
    const rng = new Rng(B * T * H * D);
    const n = B * T * H * D;
    const x = randF32as64(rng, n);
    const dout = randF32as64(rng, n);
    const positions = ref.ropePositions(B, T, offset);
    if (B > 1) positions[T] = 3; // rows of a batch may start at different positions (KV cache)
    const spec = { B, T, H, D, theta, maxPosition: offset + T + 8 };
    const refSpec = { B, T, H, D, theta, positions };
    const [tx, td, tp] = [upload64(rt, x, [B, T, H, D]), upload64(rt, dout, [B, T, H, D]), uploadI32(rt, positions, [B, T])];
    const out = ropeForward(rt, tx, tp, spec);
    const dx = ropeBackward(rt, td, tp, spec);
    expect(await errorVs(rt, out, ref.ropeForward(x, refSpec))).toBeLessThanOrEqual(TOL);
    expect(await errorVs(rt, dx, ref.ropeBackward(dout, refSpec))).toBeLessThanOrEqual(TOL);
    rt.release(tx, td, tp, out, dx);
  });
});
