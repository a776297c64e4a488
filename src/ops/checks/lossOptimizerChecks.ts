// Self-check entries (browser smoke subset) for the log-prob / cross-entropy kernels and AdamW.
import * as ref from '../../reference/ops';
import { logprobBackward, logprobForward } from '../crossEntropy';
import { adamwStep, GradNorm } from '../optimizer';
import { registerChecks } from '../selfCheck';
import { errorVs, randF32as64, upload64, uploadI32 } from '../testUtil';

const TOL = 1e-4;

registerChecks(
  {
    name: 'logprob forward+backward N=37 V=272',
    tol: TOL,
    async run(rt, rng) {
      const [N, V] = [37, 272];
      const logits = randF32as64(rng, N * V, 3);
      const targets = Int32Array.from({ length: N }, () => rng.int(0, V - 1));
      const dlogp = randF32as64(rng, N);
      const [tl, tt, td] = [upload64(rt, logits, [N, V]), uploadI32(rt, targets, [N]), upload64(rt, dlogp, [N])];
      const { logp, lse } = logprobForward(rt, tl, tt, { N, V });
      const dl = logprobBackward(rt, td, tl, tt, lse, { N, V });
      const r = ref.logprobForward(logits, targets, N, V);
      const e = Math.max(await errorVs(rt, logp, r.logp), await errorVs(rt, dl, ref.logprobBackward(dlogp, logits, targets, r.lse, N, V)));
      rt.release(tl, tt, td, logp, lse, dl);
      return e;
    },
  },
  {
    // GRPO scores rollouts sampled at T ≠ 1 with the tempered kernels: softmax(logits / T), gradient times 1/T
    name: 'logprob forward+backward at temperature 0.7 N=37 V=272',
    tol: TOL,
    async run(rt, rng) {
      const [N, V, T] = [37, 272, 0.7];
      const logits = randF32as64(rng, N * V, 3);
      const targets = Int32Array.from({ length: N }, () => rng.int(0, V - 1));
      const dlogp = randF32as64(rng, N);
      const [tl, tt, td] = [upload64(rt, logits, [N, V]), uploadI32(rt, targets, [N]), upload64(rt, dlogp, [N])];
      const { logp, lse } = logprobForward(rt, tl, tt, { N, V, temperature: T });
      const dl = logprobBackward(rt, td, tl, tt, lse, { N, V, temperature: T });
      const z = logits.map((x) => x / T);
      const r = ref.logprobForward(z, targets, N, V);
      const want = ref.logprobBackward(dlogp, z, targets, r.lse, N, V).map((g) => g / T);
      const e = Math.max(await errorVs(rt, logp, r.logp), await errorVs(rt, dl, want));
      rt.release(tl, tt, td, logp, lse, dl);
      return e;
    },
  },
  {
    name: 'grad-norm clip + AdamW step n=1000',
    tol: TOL,
    async run(rt, rng) {
      const n = 1000;
      const cfg = { lr: 1e-2, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.1 };
      const p = randF32as64(rng, n);
      const g = randF32as64(rng, n);
      const slot = { param: upload64(rt, p, [n]), grad: upload64(rt, g, [n]), m: rt.zeros([n]), v: rt.zeros([n]), decay: true };
      const norm = new GradNorm(rt, [slot.grad]);
      norm.compute(1.0);
      adamwStep(rt, [slot], cfg, 1, norm.stats);
      ref.clipGradients([g], 1.0);
      ref.adamwStep(p, g, new Float64Array(n), new Float64Array(n), cfg, 1);
      const e = await errorVs(rt, slot.param, p);
      rt.release(slot.param, slot.grad, slot.m, slot.v, norm.partials, norm.stats);
      return e;
    },
  },
);
