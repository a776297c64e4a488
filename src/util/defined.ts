/** Drops keys whose value is undefined, so `{ ...defaults, ...defined(overrides) }` keeps the defaults for unset fields. */
export function defined<T extends object>(partial: T | undefined): Partial<T> {
  return Object.fromEntries(Object.entries(partial ?? {}).filter(([, v]) => v !== undefined)) as Partial<T>;
}
