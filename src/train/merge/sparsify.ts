// Sparsification of task vectors, shared by TIES and DARE:
//   trim (TIES, Yadav et al. 2023): keep the k = round(density·n) entries of largest |τ|, zero the rest;
//   drop (DARE, Yu et al. 2024): keep each entry with probability density, zero it otherwise, and
//        rescale the kept ones by 1/density so the expected task vector is unchanged.
import { hashString, mixSeeds } from '../../util/seeds';
import { Rng } from '../../util/rng';

export function checkDensity(density: number): void {
  if (!(density > 0 && density <= 1)) throw new Error(`merge: density must be in (0, 1], got ${density}`);
}

/** The k-th largest value of a (k ≥ 1), by quickselect on a copy; O(n) expected. */
function kthLargest(values: Float32Array, k: number): number {
  const a = values.slice();
  let lo = 0;
  let hi = a.length - 1;
  const want = k - 1; // index in descending order
  let rng = 0x9e3779b9;
  while (lo < hi) {
    rng = (Math.imul(rng, 1664525) + 1013904223) >>> 0;
    const pivot = a[lo + (rng % (hi - lo + 1))];
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i] > pivot) i++;
      while (a[j] < pivot) j--;
      if (i <= j) {
        [a[i], a[j]] = [a[j], a[i]];
        i++;
        j--;
      }
    }
    if (want <= j) hi = j;
    else if (want >= i) lo = i;
    else return a[want];
  }
  return a[want];
}

/** TIES trim: a copy of tau keeping exactly k = round(density·n) largest-magnitude entries (ties: lowest index first). */
export function trimToDensity(tau: Float32Array, density: number): Float32Array {
  checkDensity(density);
  const n = tau.length;
  const k = Math.round(density * n);
  if (k >= n) return tau.slice();
  const out = new Float32Array(n);
  if (k === 0) return out;
  const mag = tau.map(Math.abs);
  const threshold = kthLargest(mag, k);
  let above = 0;
  for (let j = 0; j < n; j++) if (mag[j] > threshold) above++;
  let equalLeft = k - above; // entries equal to the threshold still to keep
  for (let j = 0; j < n; j++) {
    if (mag[j] > threshold) out[j] = tau[j];
    else if (mag[j] === threshold && equalLeft > 0) {
      out[j] = tau[j];
      equalLeft--;
    }
  }
  return out;
}

/** DARE's random stream for one model's tensor: seeded by (seed, tensor name, model index), so order does not matter. */
export function dareRng(seed: number, tensorName: string, modelIndex: number): Rng {
  return new Rng(mixSeeds(seed, hashString(tensorName), modelIndex));
}

/** DARE drop and rescale: each entry kept with probability density and divided by density. */
export function dropAndRescale(tau: Float32Array, density: number, rng: Rng): Float32Array {
  checkDensity(density);
  const out = new Float32Array(tau.length);
  for (let j = 0; j < tau.length; j++) if (rng.next() < density) out[j] = tau[j] / density;
  return out;
}
