// The most basic check: a tensor survives an upload, a GPU copy and a readback bit-exactly.
import { randomNormal } from '../util/rng';
import { registerChecks } from './selfCheck';

registerChecks({
  name: 'runtime upload/copy/readback',
  tol: 0,
  async run(rt, rng) {
    const x = randomNormal(rng, 1000);
    const a = rt.upload(x, [1000]);
    const b = rt.empty([1000]);
    rt.copy(a, b);
    const y = await rt.readF32(b);
    rt.release(a, b);
    let worst = 0;
    for (let i = 0; i < x.length; i++) worst = Math.max(worst, Math.abs(x[i] - y[i]));
    return worst;
  },
});
