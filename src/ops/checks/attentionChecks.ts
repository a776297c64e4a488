// Self-check entries (browser smoke subset) for causal GQA flash attention and the matmul.
import * as ref from '../../reference/ops';
import { attentionBackward, attentionForward } from '../attention';
import { matmulForward } from '../matmul';
import { registerChecks } from '../selfCheck';
import { errorVs, randF32as64, upload64, uploadI32 } from '../testUtil';

const TOL = 1e-4;

registerChecks(
  {
    name: 'attention forward+backward B=2 T=13 Hq=8 Hkv=2 D=16 (GQA 4, packed)',
    tol: TOL,
    async run(rt, rng) {
      const [B, T, Hq, Hkv, D] = [2, 13, 8, 2, 16];
      const q = randF32as64(rng, B * T * Hq * D);
      const k = randF32as64(rng, B * T * Hkv * D);
      const v = randF32as64(rng, B * T * Hkv * D);
      const dout = randF32as64(rng, B * T * Hq * D);
      const segments = Int32Array.from({ length: B * T }, (_, i) => (i < T ? 0 : i < T + 7 ? 0 : i < 2 * T - 1 ? 1 : -1));
      const tq = upload64(rt, q, [B, T, Hq, D]);
      const tk = upload64(rt, k, [B, T, Hkv, D]);
      const tv = upload64(rt, v, [B, T, Hkv, D]);
      const td = upload64(rt, dout, [B, T, Hq, D]);
      const ts = uploadI32(rt, segments, [B, T]);
      const spec = { B, T, Hq, Hkv, D, segments: ts };
      const { out, lse } = attentionForward(rt, tq, tk, tv, spec);
      const { dq, dk, dv } = attentionBackward(rt, td, tq, tk, tv, out, lse, spec);
      const rspec = { B, T, Hq, Hkv, D, segments };
      const r = ref.attentionForward(q, k, v, rspec);
      const g = ref.attentionBackward(dout, q, k, v, r.out, r.lse, rspec);
      const e = Math.max(
        await errorVs(rt, out, r.out), await errorVs(rt, lse, r.lse),
        await errorVs(rt, dq, g.dq), await errorVs(rt, dk, g.dk), await errorVs(rt, dv, g.dv),
      );
      rt.release(tq, tk, tv, td, ts, out, lse, dq, dk, dv);
      return e;
    },
  },
  {
    name: 'matmul 37x53x29 all transposes',
    tol: TOL,
    async run(rt, rng) {
      const [M, K, N] = [37, 53, 29];
      let worst = 0;
      for (const transA of [false, true]) {
        for (const transB of [false, true]) {
          const spec = { batch: 1, M, K, N, transA, transB };
          const a = randF32as64(rng, M * K);
          const b = randF32as64(rng, K * N);
          const ta = upload64(rt, a, transA ? [K, M] : [M, K]);
          const tb = upload64(rt, b, transB ? [N, K] : [K, N]);
          const c = matmulForward(rt, ta, tb, spec);
          worst = Math.max(worst, await errorVs(rt, c, ref.matmulForward(a, b, spec)));
          rt.release(ta, tb, c);
        }
      }
      return worst;
    },
  },
);
