// Attention forward+backward and AdamW rows of the bench.
//   attention: ours = flash-style kernels (out + lse saved, backward recomputes);
//     tfjs-webgpu = the textbook graph a general library runs (scores = q·kᵀ, mask, softmax, p·v,
//     gradients by tf.grads), which materialises the (B·H, T, T) scores; ort-webgpu has no
//     training graph here (null, with the reason).
//   adamw: one step over 10 M parameters; tfjs-webgpu = the same update written with tf ops.
import type { GpuRuntime } from '../../gpu/runtime';
import { benchAttention } from '../../ops/attentionBench';
import { adamwStep, GradNorm, type OptimizerSlot } from '../../ops/optimizer';
import { Rng, randomNormal } from '../../util/rng';
import { tfjsOf } from './peers';
import { type PeerContext, registerBench } from './registry';

interface AttnShape {
  name: string;
  B: number;
  T: number;
  Hq: number;
  Hkv: number;
  D: number;
}

const SHAPES: AttnShape[] = [
  { name: 'attention forward+backward nano B=4 T=512 Hq=4 Hkv=2 D=24', B: 4, T: 512, Hq: 4, Hkv: 2, D: 24 },
  { name: 'attention forward+backward tiny B=2 T=256 Hq=8 Hkv=4 D=32', B: 2, T: 256, Hq: 8, Hkv: 4, D: 32 },
];

function tfjsAttention(s: AttnShape) {
  return async (peers: PeerContext): Promise<number> => {
    const tf = tfjsOf(peers);
    const rng = new Rng(7);
    const H = s.Hq;
    const [q, k, v, dout] = [0, 1, 2, 3].map(() => tf.tensor3d(randomNormal(rng, s.B * H * s.T * s.D), [s.B * H, s.T, s.D]));
    // GQA expressed as repeated kv heads (what a general library does without a fused kernel).
    const mask = tf.linalg.bandPart(tf.ones([s.T, s.T]), -1, 0).sub(1).mul(1e9); // 0 on/below the diagonal, −1e9 above
    const f = (qq: import('@tensorflow/tfjs').Tensor, kk: import('@tensorflow/tfjs').Tensor, vv: import('@tensorflow/tfjs').Tensor) => {
      const scores = tf.matMul(qq as import('@tensorflow/tfjs').Tensor3D, kk as import('@tensorflow/tfjs').Tensor3D, false, true).mul(1 / Math.sqrt(s.D)).add(mask);
      const p = tf.softmax(scores);
      return tf.matMul(p, vv as import('@tensorflow/tfjs').Tensor3D).mul(dout).sum();
    };
    const grads = tf.grads(f);
    await Promise.all([q.data(), k.data(), v.data(), dout.data()]);
    const t0 = performance.now();
    const g = grads([q, k, v]);
    await Promise.all(g.map((x) => x.data()));
    const ms = performance.now() - t0;
    tf.dispose([...g, q, k, v, dout, mask]);
    return ms;
  };
}

registerBench(
  ...SHAPES.map((s) => ({
    name: s.name,
    unit: 'ms',
    run: (rt: GpuRuntime) => benchAttention(rt, { B: s.B, T: s.T, Hq: s.Hq, Hkv: s.Hkv, D: s.D, iters: 2 }),
    peers: {
      'tfjs-webgpu': tfjsAttention(s),
      'ort-webgpu': async () => {
        throw new Error('no attention training graph for onnxruntime-web (inference runtime)');
      },
    },
  })),
);

const ADAM_N = 10_000_000;
let adamState: { slot: OptimizerSlot; norm: GradNorm } | null = null;

registerBench({
  name: 'adamw step 10M parameters',
  unit: 'ms',
  async run(rt) {
    if (!adamState) {
      const rng = new Rng(3);
      const slot: OptimizerSlot = { param: rt.upload(randomNormal(rng, ADAM_N), [ADAM_N]), grad: rt.upload(randomNormal(rng, ADAM_N, 0.01), [ADAM_N]), m: rt.zeros([ADAM_N]), v: rt.zeros([ADAM_N]), decay: true };
      adamState = { slot, norm: new GradNorm(rt, [slot.grad]) };
    }
    await rt.sync();
    const t0 = performance.now();
    adamState.norm.compute(1.0);
    adamwStep(rt, [adamState.slot], { lr: 1e-3, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.01 }, 1, adamState.norm.stats);
    await rt.sync();
    return performance.now() - t0;
  },
  peers: {
    'tfjs-webgpu': async (peers) => {
      const tf = tfjsOf(peers);
      const rng = new Rng(3);
      const p = tf.variable(tf.tensor1d(randomNormal(rng, ADAM_N)));
      const g = tf.tensor1d(randomNormal(rng, ADAM_N, 0.01));
      const m = tf.variable(tf.zeros([ADAM_N]));
      const v = tf.variable(tf.zeros([ADAM_N]));
      await g.data();
      const t0 = performance.now();
      tf.tidy(() => {
        const norm = g.square().sum().sqrt();
        const gs = g.mul(tf.minimum(1, tf.scalar(1).div(norm.add(1e-6))));
        m.assign(m.mul(0.9).add(gs.mul(0.1)));
        v.assign(v.mul(0.999).add(gs.square().mul(0.001)));
        const upd = m.div(0.1).div(v.div(0.001).sqrt().add(1e-8)).add(p.mul(0.01)).mul(1e-3);
        p.assign(p.sub(upd));
      });
      await p.data();
      const ms = performance.now() - t0;
      tf.dispose([p, g, m, v]);
      return ms;
    },
    'ort-webgpu': async () => {
      throw new Error('no optimizer graph for onnxruntime-web (inference runtime)');
    },
  },
  dispose(rt) {
    if (adamState) rt.release(adamState.slot.param, adamState.slot.grad, adamState.slot.m, adamState.slot.v, adamState.norm.partials, adamState.norm.stats);
    adamState = null;
  },
});
