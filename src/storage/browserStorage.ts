// Page-side storage helpers: ask the browser to keep our data (navigator.storage.persist(), so
// checkpoints are not evicted under storage pressure) and show usage against quota (estimate()).
// They work in the page and in workers; elsewhere (Node) they report "unavailable".

export interface StorageStatus {
  /** True when the origin's storage is persistent (not evicted under pressure). */
  persisted: boolean | null;
  usageBytes: number | null;
  quotaBytes: number | null;
  /** One line for the page ("12.3 MB of 2.1 GB used; persistent"). */
  summary: string;
}

function storageManager(): StorageManager | null {
  return (globalThis.navigator as Navigator | undefined)?.storage ?? null;
}

/**
 * Asks for persistent storage (Chromium grants it to installed or engaged sites without a prompt;
 * Firefox asks the user). Resolves false when refused or unavailable; never throws.
 */
export async function requestPersistentStorage(): Promise<boolean> {
  const s = storageManager();
  if (!s?.persist) return false;
  try {
    return (await s.persisted?.()) || (await s.persist());
  } catch {
    return false;
  }
}

const size = (n: number) => (n >= 1e9 ? `${(n / 1e9).toFixed(1)} GB` : `${(n / 1e6).toFixed(1)} MB`);

/** Usage, quota and persistence of this origin's storage. */
export async function storageStatus(): Promise<StorageStatus> {
  const s = storageManager();
  if (!s?.estimate) return { persisted: null, usageBytes: null, quotaBytes: null, summary: 'storage usage unavailable here' };
  const [e, persisted] = await Promise.all([s.estimate(), s.persisted ? s.persisted().catch(() => null) : Promise.resolve(null)]);
  const usage = e.usage ?? null;
  const quota = e.quota ?? null;
  const used = usage !== null && quota !== null ? `${size(usage)} of ${size(quota)} used` : 'usage unknown';
  return { persisted, usageBytes: usage, quotaBytes: quota, summary: `${used}; ${persisted ? 'persistent' : 'may be evicted under storage pressure'}` };
}
