// Share links: the RunConfig as base64url JSON in the URL fragment, `#config=<…>&autostart=1`.
// The fragment never reaches a server (there is none anyway) and survives static hosting. Also read
// from the query string (`?config=…`) for tools that drop fragments. DOM-free: the page passes
// location.hash / location.search in.
import { DEFAULT_RUN_CONFIG, type RunConfig, type TrainablePreset, describeErrors, validateRunConfig } from './runConfig';

const MAX_ENCODED_CHARS = 4000; // a RunConfig is ~150 characters; anything huge is not ours

/** UTF-8 text → base64url without padding (RFC 4648 §5). */
export function toBase64Url(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** base64url (padding optional) → UTF-8 text; throws on characters outside the alphabet or bad UTF-8. */
export function fromBase64Url(encoded: string): string {
  if (!/^[A-Za-z0-9_-]*$/.test(encoded)) throw new Error('it contains characters that are not base64url');
  if (encoded.length % 4 === 1) throw new Error('its length is not valid base64url');
  const b64 = encoded.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (encoded.length % 4)) % 4);
  const binary = atob(b64);
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
}

/** The `config=` value for a RunConfig (keys in a fixed order so equal configs give equal links). */
export function encodeRunConfig(config: RunConfig): string {
  const { preset, seed, sftSteps, rlSteps, tasksPerStep, groupSize, quick } = config;
  return toBase64Url(JSON.stringify({ preset, seed, sftSteps, rlSteps, tasksPerStep, groupSize, quick }));
}

/** `#config=…` (plus `&autostart=1`) for location.hash. */
export function shareHash(config: RunConfig, opts: { autostart?: boolean } = {}): string {
  return `#config=${encodeRunConfig(config)}${opts.autostart ? '&autostart=1' : ''}`;
}

/** A full link: `base` (page URL; its fragment is replaced) with the config fragment. */
export function shareUrl(base: string, config: RunConfig, opts: { autostart?: boolean } = {}): string {
  return base.replace(/#.*$/, '') + shareHash(config, opts);
}

export type ShareLinkRead =
  /** The URL has no config. */
  | { kind: 'none' }
  | { kind: 'ok'; config: RunConfig; autostart: boolean }
  /** The URL has a config that cannot be used: `error` says why; `config` is the defaults. */
  | { kind: 'invalid'; config: RunConfig; error: string };

/** Reads a share link from location.hash and location.search (the fragment wins). */
export function readShareLink(hash: string, search = ''): ShareLinkRead {
  const fromHash = new URLSearchParams(hash.replace(/^#/, ''));
  const fromQuery = new URLSearchParams(search.replace(/^\?/, ''));
  const params = fromHash.has('config') ? fromHash : fromQuery;
  const encoded = params.get('config');
  if (encoded === null) return { kind: 'none' };
  const autostart = ['1', 'true', 'yes'].includes(params.get('autostart') ?? '');
  const invalid = (why: string): ShareLinkRead => ({
    kind: 'invalid', config: { ...DEFAULT_RUN_CONFIG },
    error: `This share link's run configuration cannot be used: ${why}. The form shows the defaults instead${autostart ? ' and the run was not started' : ''}.`,
  });
  if (encoded === '') return invalid('config= is empty');
  if (encoded.length > MAX_ENCODED_CHARS) return invalid(`config= is ${encoded.length} characters long, more than a RunConfig can be`);
  let text: string;
  try {
    text = fromBase64Url(encoded);
  } catch (e) {
    return invalid(`config= is not base64url-encoded JSON (${(e as Error).message}): the link may have been cut off when it was copied`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return invalid(`config= does not decode to JSON (${(e as Error).message}): the link may have been cut off when it was copied`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return invalid('config= must decode to a JSON object');
  // Fields a link leaves out take their defaults: links stay valid when new fields are added.
  const checked = validateRunConfig({ ...DEFAULT_RUN_CONFIG, ...json });
  if (!checked.ok) return invalid(describeErrors(checked.errors));
  return { kind: 'ok', config: checked.config, autostart };
}

/** Parameters of each preset ÷ nano's (training cost per token scales with them); a unit test keeps them equal to countParameters. */
export const PRESET_COST: Record<TrainablePreset, number> = { nano: 1, tiny: 11.1, small: 73.1 };

/**
 * A run's work in default runs (DEFAULT_RUN_CONFIG = 1): SFT steps and GRPO samples (steps × tasks
 * × group) relative to the default's, weighted by their share of the default run's time (about a
 * quarter SFT, three quarters GRPO), times the preset's size.
 */
export function runSizeVsDefault(config: RunConfig): number {
  const d = DEFAULT_RUN_CONFIG;
  const sft = config.sftSteps / d.sftSteps;
  const rl = (config.rlSteps * config.tasksPerStep * config.groupSize) / (d.rlSteps * d.tasksPerStep * d.groupSize);
  return PRESET_COST[config.preset] * (0.25 * sft + 0.75 * rl);
}

/** An autostart link for a run larger than this many default runs waits for the person to press Start. */
export const AUTOSTART_MAX_SIZE = 4;

/** Why an autostart link's run must wait for Start (a sentence for the page), or null when it may start. */
export function autostartHold(config: RunConfig): string | null {
  const size = runSizeVsDefault(config);
  if (size <= AUTOSTART_MAX_SIZE) return null;
  const times = size < 1000 ? size.toFixed(0) : size.toExponential(1);
  return `This link asks for a long run (preset ${config.preset}, ${config.sftSteps} SFT steps, ${config.rlSteps} GRPO steps × ${config.tasksPerStep} tasks × ${config.groupSize} samples: about ${times}× the default run, which can take hours). It was not started on its own: check the settings and press Start.`;
}
