// Every merge method against small hand-computed tensors.
import { describe, expect, it } from 'vitest';
import { mergeMethod, mergeOptions } from './methods';
import { dareRng, trimToDensity } from './sparsify';

const f = (...v: number[]) => Float32Array.from(v);
function run(method: string, base: Float32Array | null, models: Float32Array[], opts: Parameters<typeof mergeOptions>[2] = {}): number[] {
  const m = mergeMethod(method);
  return [...m.merge({ name: 'w', base, models }, mergeOptions(m, models.length, opts))];
}
const close = (a: number[], b: number[]) => expect(a.map((x) => +x.toFixed(5))).toEqual(b.map((x) => +x.toFixed(5)));

describe('merge methods (hand-computed)', () => {
  it('linear: Σ w_i θ_i / Σ w_i', () => {
    // (1·[1,2,3] + 3·[3,2,1]) / 4
    close(run('linear', null, [f(1, 2, 3), f(3, 2, 1)], { weights: [1, 3] }), [2.5, 2, 1.5]);
    close(run('linear', null, [f(1, 2, 3), f(3, 2, 1)]), [2, 2, 2]);
    expect(() => run('linear', null, [f(1), f(2)], { weights: [1, -1] })).toThrow(/sum to 0/);
  });

  it('task arithmetic: base + λ Σ w_i τ_i', () => {
    // τ1 = [1, 0, −1], τ2 = [0, 2, 0]; 1·τ1 + 0.5·τ2 = [1, 1, −1]; base + 2·that
    close(run('task-arithmetic', f(1, 1, 1), [f(2, 1, 0), f(1, 3, 1)], { weights: [1, 0.5], lambda: 2 }), [3, 3, -1]);
  });

  it('TIES: trim to density, elect sign by the weighted sum, disjoint mean', () => {
    const base = f(0, 0, 0, 0);
    const models = [f(3, -1, 0.5, -2), f(-1, 2, 0.1, -1), f(2, -3, -0.2, 0.3)];
    // trimmed (k = 2): [3,0,0,−2], [−1,2,0,0] (tie |−1| = |−1|: lowest index kept), [2,−3,0,0]
    // j0: sum 4 → +, agreeing 3, 2 → 2.5; j1: sum −1 → −, agreeing −3; j2: nothing kept → 0; j3: −2
    close(run('ties', base, models, { density: 0.5 }), [2.5, -3, 0, -2]);
    // weights: j0 with w = [1, 1, 0.25]: 3 − 1 + 0.5 > 0 → (3 + 0.5) / (1 + 0.25) = 2.8
    close(run('ties', base, models, { density: 0.5, weights: [1, 1, 0.25] }).slice(0, 1), [2.8]);
    // density 1: no trim; j2: 0.5 + 0.1 − 0.2 > 0 → mean(0.5, 0.1) = 0.3
    close(run('ties', base, models, { density: 1 }), [2.5, -2, 0.3, -1.5]);
  });

  it('trim keeps exactly round(density·n) entries', () => {
    expect([...trimToDensity(f(1, -1, 1, -1, 0.5), 0.4)]).toEqual([1, -1, 0, 0, 0]);
    expect([...trimToDensity(f(0.1, -5, 3, 0.2), 0.25)]).toEqual([0, -5, 0, 0]);
  });

  it('DARE: each update kept with probability density and scaled by 1/density, seeded per tensor and model', () => {
    const base = f(1, 1, 1, 1, 1, 1, 1, 1);
    const models = [f(2, 3, 4, 5, 6, 7, 8, 9), f(0, 0, 0, 0, 0, 0, 0, 0)];
    const d = 0.5;
    // the masks, from the documented stream: Rng(mix(seed, hash(name), i)), one draw per entry
    const masks = [0, 1].map((i) => { const r = dareRng(7, 'w', i); return Array.from({ length: 8 }, () => r.next() < d); });
    const taus = models.map((m) => [...m].map((x, j) => x - base[j]));
    const expected = base.map((b, j) => b + masks.reduce((s, mask, i) => s + (mask[j] ? taus[i][j] / d : 0), 0));
    close(run('dare-linear', base, models, { density: d, seed: 7 }), [...expected]);
    expect(run('dare-linear', base, models, { density: d, seed: 8 })).not.toEqual(run('dare-linear', base, models, { density: d, seed: 7 }));
    // dare-ties: same dropped vectors, then sign election: τ1 > 0 everywhere, τ2 = −1 everywhere
    const dt = base.map((b, j) => {
      const v = [0, 1].map((i) => (masks[i][j] ? taus[i][j] / d : 0));
      const sign = v[0] + v[1] >= 0 ? 1 : -1;
      const agree = v.filter((x) => Math.sign(x) === sign);
      return b + (agree.length ? agree.reduce((a, x) => a + x, 0) / agree.length : 0);
    });
    close(run('dare-ties', base, models, { density: d, seed: 7 }), [...dt]);
    // density 1 drops nothing: dare-linear = task arithmetic
    close(run('dare-linear', base, models, { density: 1 }), run('task-arithmetic', base, models));
  });

  it('DARE keeps about density of the entries and is unbiased', () => {
    const n = 20000;
    const base = new Float32Array(n);
    const model = new Float32Array(n).fill(1);
    const out = run('dare-linear', base, [model], { density: 0.25, seed: 1 });
    const kept = out.filter((x) => x !== 0);
    expect(kept.every((x) => x === 4)).toBe(true);
    expect(kept.length / n).toBeGreaterThan(0.24);
    expect(kept.length / n).toBeLessThan(0.26);
  });

  it('SLERP: sin-weighted interpolation; linear when colinear', () => {
    const s = Math.SQRT1_2; // sin(π/4) / sin(π/2)
    close(run('slerp', null, [f(1, 0), f(0, 1)], { t: 0.5 }), [s, s]);
    close(run('slerp', null, [f(2, 0), f(0, 1)], { t: 0.5 }), [2 * s, s]); // angle from directions, magnitudes kept
    // t = 1/3 on a right angle: sin(π/3) and sin(π/6)
    close(run('slerp', null, [f(1, 0), f(0, 1)], { t: 1 / 3 }), [Math.sin(Math.PI / 3), Math.sin(Math.PI / 6)]);
    close(run('slerp', null, [f(1, 2), f(2, 4)], { t: 0.25 }), [1.25, 2.5]);
    close(run('slerp', f(1, 0), [f(0, 1)], { t: 0.5 }), [s, s]); // base and one model
    expect(() => run('slerp', null, [f(1), f(2), f(3)])).toThrow(/1–2 models, got 3/);
  });

  it('RAM: unique updates at full scale, shared ones averaged, small ones ignored', () => {
    const base = f(1, 1, 1, 1);
    // τ1 = [1, 0, 2, 0], τ2 = [0, 3, 4, 0] → [1, 3, (2+4)/2, 0]
    close(run('ram', base, [f(2, 1, 3, 1), f(1, 4, 5, 1)]), [2, 4, 4, 1]);
    // ε = 0.5: τ1[0] = 0.4 is not an update, so τ2's 1 is unique: [1 + 1, …]
    close(run('ram', base, [f(1.4, 1, 1, 1), f(2, 1, 1, 1)], { epsilon: 0.5 }), [2, 1, 1, 1]);
    // vs task arithmetic with weights 1/2 (unique updates halved)
    close(run('task-arithmetic', base, [f(2, 1, 3, 1), f(1, 4, 5, 1)], { weights: [0.5, 0.5] }), [1.5, 2.5, 4, 1]);
  });

  it('fisher: Σ w_i F_i θ_i / Σ w_i F_i, a floor where no model has Fisher', () => {
    const models = [f(1, 2, 3), f(3, 6, 1)];
    // F1 = [1, 0, 0], F2 = [1, 1, 0]: j0 both count → mean 2; j1 only model 2 → its 6; j2 neither → the floor's mean 2
    const importance = [f(1, 0, 0), f(1, 1, 0)];
    const m = mergeMethod('fisher');
    const merge = (weights?: number[], imp = importance) => [...m.merge({ name: 'w', base: null, models, importance: imp }, mergeOptions(m, 2, weights ? { weights } : {}))];
    close(merge(), [2, 6, 2]);
    // weights [3, 1]: j0 (3·1 + 1·3) / 4 = 1.5; j2 (3·3 + 1·1) / 4 = 2.5; j1 model 2's 6, moved by the
    // floor ε = 1e-6 · mean Fisher (3 / 6) toward model 1's 2: (3ε·2 + (1 + ε)·6) / (3ε + 1 + ε)
    const eps = 1e-6 * (3 / 6);
    close(merge([3, 1]), [1.5, (3 * eps * 2 + (1 + eps) * 6) / (4 * eps + 1), 2.5]);
    // no Fisher anywhere: the weighted average (= linear)
    close(merge([3, 1], [f(0, 0, 0), f(0, 0, 0)]), [1.5, 3, 2.5]);
    close(run('linear', null, models, { weights: [3, 1] }), [1.5, 3, 2.5]);
    expect(() => m.merge({ name: 'w', base: null, models }, mergeOptions(m, 2))).toThrow(/needs each model's Fisher diagonal/);
    expect(() => merge([1, 1], [f(1, -1, 0), f(1, 1, 0)])).toThrow(/negative or non-finite Fisher/);
    expect(() => mergeOptions(m, 2, { weights: [1, 0] })).toThrow(/weights must be positive/);
  });

  it('checks options', () => {
    expect(() => mergeMethod('soup')).toThrow(/unknown method 'soup'; choose one of linear, task-arithmetic, ties, dare-linear, dare-ties, slerp, ram, fisher/);
    expect(() => run('ties', f(0), [f(1)], { density: 0 })).toThrow(/density must be in \(0, 1\]/);
    expect(() => run('linear', null, [f(1), f(2)], { weights: [1] })).toThrow(/1 weights for 2 models/);
    expect(() => run('task-arithmetic', null, [f(1)])).toThrow(/needs the base/);
  });
});
