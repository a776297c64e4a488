// The adapter probe's answer, kept in localStorage so the page does not time the adapters on every
// open; it is used only while the browser offers the same adapters (same signature).
import type { ProbeResult } from '../workers/adapterProbe';

const KEY = 'tabforge-adapter-probe';

export function readProbe(): Pick<ProbeResult, 'choice' | 'reason' | 'signature'> | null {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) ?? 'null') as Partial<ProbeResult> | null;
    if (!v || (v.choice !== 'core' && v.choice !== 'compatibility') || typeof v.reason !== 'string' || typeof v.signature !== 'string') return null;
    return { choice: v.choice, reason: v.reason, signature: v.signature };
  } catch {
    return null;
  }
}

export function saveProbe(p: ProbeResult): void {
  try {
    localStorage.setItem(KEY, JSON.stringify({ choice: p.choice, reason: p.reason, signature: p.signature }));
  } catch {
    // storage refused (private mode): the next open probes again
  }
}
