// pass@k: the chance that at least one of k samples solves a task. With n ≥ k samples of which c
// succeeded, the unbiased estimator (Chen et al. 2021, "Evaluating Large Language Models Trained
// on Code") is  pass@k = 1 − C(n−c, k) / C(n, k),  averaged over tasks. Plain "any of k succeeded"
// with n = k is the special case the formula gives when n = k (0 or 1 per task).

/**
 * Unbiased pass@k of one task from n samples with c successes. Computed as the product
 * 1 − Π_{i=n−c+1}^{n} (1 − k/i), which equals the binomial ratio without huge intermediate numbers.
 */
export function passAtK(n: number, c: number, k: number): number {
  if (!Number.isInteger(n) || !Number.isInteger(c) || !Number.isInteger(k) || n < 1 || k < 1 || c < 0 || c > n) {
    throw new Error(`passAtK: need integers n ≥ 1, 0 ≤ c ≤ n, k ≥ 1 (got n=${n}, c=${c}, k=${k})`);
  }
  if (k > n) throw new Error(`passAtK: k=${k} needs at least k samples per task, got n=${n}; sample more or lower k`);
  if (n - c < k) return 1; // every choice of k samples contains a success
  let allFail = 1;
  for (let i = n - c + 1; i <= n; i++) allFail *= 1 - k / i;
  return 1 - allFail;
}

/** Mean pass@k over tasks, each given as its (samples, successes). */
export function meanPassAtK(tasks: readonly { n: number; c: number }[], k: number): number {
  if (tasks.length === 0) return 0;
  return tasks.reduce((sum, t) => sum + passAtK(t.n, t.c, k), 0) / tasks.length;
}
