// Workgroup-count helpers. WebGPU caps each dispatch dimension at 65535 workgroups, so large 1-D
// problems spill into y; shaders rebuild the flat index as gid.x + gid.y · (num_workgroups.x · WG).

export const MAX_GROUPS_PER_DIM = 65535;

/** Workgroups for `n` invocations of a 1-D kernel with workgroup size `wg`. */
export function grid1d(n: number, wg: number): [number, number] {
  const groups = Math.max(1, Math.ceil(n / wg));
  if (groups <= MAX_GROUPS_PER_DIM) return [groups, 1];
  const y = Math.ceil(groups / MAX_GROUPS_PER_DIM);
  return [Math.ceil(groups / y), y];
}

/** Workgroups for one workgroup per row over `rows` rows. */
export function gridRows(rows: number): [number, number] {
  return grid1d(rows, 1);
}
