// Self-check entries (browser smoke subset) for embedding, RMSNorm, RoPE, SwiGLU and residual add.
// Each compares forward and backward with the float64 reference on small fresh random inputs.
import * as ref from '../../reference/ops';
import { accumulate, addForward, swigluBackward, swigluForward } from '../elementwise';
import { embeddingBackward, embeddingForward } from '../embedding';
import { rmsnormBackward, rmsnormForward } from '../rmsnorm';
import { ropeBackward, ropeForward } from '../rope';
import { registerChecks } from '../selfCheck';
import { errorVs, randF32as64, upload64, uploadI32 } from '../testUtil';

const TOL = 1e-4;

registerChecks(
  {
    name: 'embedding forward+backward N=37 V=13 C=53',
    tol: TOL,
    async run(rt, rng) {
      const [N, V, C] = [37, 13, 53];
      const ids = Int32Array.from({ length: N }, () => rng.int(0, V - 1));
      const table = randF32as64(rng, V * C);
      const dout = randF32as64(rng, N * C);
      const tIds = uploadI32(rt, ids, [N]);
      const tT = upload64(rt, table, [V, C]);
      const tD = upload64(rt, dout, [N, C]);
      const out = embeddingForward(rt, tIds, tT, { N, V, C });
      const dt = embeddingBackward(rt, tD, tIds, { N, V, C });
      const e = Math.max(await errorVs(rt, out, ref.embeddingForward(ids, table, V, C)), await errorVs(rt, dt, ref.embeddingBackward(dout, ids, V, C)));
      rt.release(tIds, tT, tD, out, dt);
      return e;
    },
  },
  {
    name: 'rmsnorm forward+backward N=37 C=53',
    tol: TOL,
    async run(rt, rng) {
      const [N, C] = [37, 53];
      const x = randF32as64(rng, N * C);
      const w = randF32as64(rng, C);
      const d = randF32as64(rng, N * C);
      const spec = { N, C, eps: 1e-6 };
      const [tx, tw, td] = [upload64(rt, x, [N, C]), upload64(rt, w, [C]), upload64(rt, d, [N, C])];
      const { out, rstd } = rmsnormForward(rt, tx, tw, spec);
      const { dx, dw } = rmsnormBackward(rt, td, tx, tw, rstd, spec);
      const r = ref.rmsnormForward(x, w, N, C, 1e-6);
      const g = ref.rmsnormBackward(d, x, w, r.rstd, N, C);
      const e = Math.max(await errorVs(rt, out, r.out), await errorVs(rt, dx, g.dx), await errorVs(rt, dw, g.dw));
      rt.release(tx, tw, td, out, rstd, dx, dw);
      return e;
    },
  },
  {
    name: 'rope forward+backward B=2 T=7 H=3 D=24',
    tol: TOL,
    async run(rt, rng) {
      const [B, T, H, D] = [2, 7, 3, 24];
      const x = randF32as64(rng, B * T * H * D);
      const positions = ref.ropePositions(B, T, 5);
      const spec = { B, T, H, D, theta: 10000, maxPosition: 64 };
      const [tx, tp] = [upload64(rt, x, [B, T, H, D]), uploadI32(rt, positions, [B, T])];
      const out = ropeForward(rt, tx, tp, spec);
      const back = ropeBackward(rt, out, tp, spec); // inverse of forward: recovers x
      const refOut = ref.ropeForward(x, { B, T, H, D, theta: 10000, positions });
      const e = Math.max(await errorVs(rt, out, refOut), await errorVs(rt, back, ref.ropeBackward(refOut, { B, T, H, D, theta: 10000, positions })));
      rt.release(tx, tp, out, back);
      return e;
    },
  },
  {
    name: 'swiglu + residual forward+backward n=1000',
    tol: TOL,
    async run(rt, rng) {
      const n = 1000;
      const [g, u, d] = [randF32as64(rng, n, 3), randF32as64(rng, n), randF32as64(rng, n)];
      const [tg, tu, td] = [upload64(rt, g, [n]), upload64(rt, u, [n]), upload64(rt, d, [n])];
      const out = swigluForward(rt, tg, tu);
      const { dgate, dup } = swigluBackward(rt, td, tg, tu);
      const sum = addForward(rt, tg, tu);
      accumulate(rt, sum, td);
      const r = ref.swigluBackward(d, g, u);
      const e = Math.max(
        await errorVs(rt, out, ref.swigluForward(g, u)),
        await errorVs(rt, dgate, r.dgate),
        await errorVs(rt, dup, r.dup),
        await errorVs(rt, sum, ref.addForward(ref.addForward(g, u), d)),
      );
      rt.release(tg, tu, td, out, dgate, dup, sum);
      return e;
    },
  },
);
