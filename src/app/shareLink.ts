// Share links: the PipelineConfig as base64url JSON in the URL fragment, `#pipeline=<…>&autostart=1`.
// The fragment never reaches a server (there is none anyway) and survives static hosting; also
// read from the query string (`?pipeline=…`) for tools that drop fragments. Links of the earlier
// page (`#config=`, the small routing RunConfig) are converted to the routing pipeline with their
// numbers, and say so. DOM-free: the page passes location.hash / location.search in.
import { z } from 'zod';
import type { PipelineConfig } from '../pipeline/config';
import { EXAMPLE_PIPELINES, learningConfig, ROUTING_LEARNING } from '../pipeline/presets';
import { checkDraft } from './pipelineDraft';

/** A pipeline config is ~1 k characters encoded; anything much bigger is not ours. */
export const MAX_ENCODED_CHARS = 16_000;

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

/** The `pipeline=` value (a validated config's keys come in schema order, so equal configs give equal links). */
export function encodePipeline(config: PipelineConfig): string {
  return toBase64Url(JSON.stringify(config));
}

/** `#pipeline=…` (plus `&autostart=1`) for location.hash. */
export function shareHash(config: PipelineConfig, opts: { autostart?: boolean } = {}): string {
  return `#pipeline=${encodePipeline(config)}${opts.autostart ? '&autostart=1' : ''}`;
}

/** A full link: `base` (page URL; its fragment is replaced) with the config fragment. */
export function shareUrl(base: string, config: PipelineConfig, opts: { autostart?: boolean } = {}): string {
  return base.replace(/#.*$/, '') + shareHash(config, opts);
}

export type ShareLinkRead =
  /** The URL has no config. */
  | { kind: 'none' }
  /** `converted`: an older link's format, turned into a pipeline (a sentence saying so). */
  | { kind: 'ok'; config: PipelineConfig; autostart: boolean; converted?: string }
  /** The URL has a config that cannot be used: `error` says why (the page keeps its defaults). */
  | { kind: 'invalid'; error: string };

/** The earlier page's RunConfig (routing only): its fields and bounds. */
const legacySchema = z.object({
  preset: z.enum(['nano', 'tiny', 'small']).default('nano'),
  seed: z.number().int().min(0).max(2 ** 31 - 1).default(1),
  sftSteps: z.number().int().min(0).max(100_000).default(150),
  rlSteps: z.number().int().min(0).max(100_000).default(10),
  tasksPerStep: z.number().int().min(1).max(256).default(8),
  groupSize: z.number().int().min(2).max(64).default(8),
  quick: z.boolean().default(false),
});

function fromLegacy(json: Record<string, unknown>): PipelineConfig | string {
  const r = legacySchema.safeParse(json);
  if (!r.success) return r.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ');
  const o = r.data;
  const routing = EXAMPLE_PIPELINES[0].config;
  return learningConfig({
    ...ROUTING_LEARNING, preset: o.preset, seed: o.seed, tasks: routing.tasks, sftExamples: 512, sftSteps: o.sftSteps,
    rlSteps: o.rlSteps, tasksPerStep: o.tasksPerStep, groupSize: o.groupSize, evalN: o.quick ? 4 : 128, evalEvery: 0, evalBefore: false,
  });
}

/** Reads a share link from location.hash and location.search (the fragment wins; `pipeline=` before the older `config=`). */
export function readShareLink(hash: string, search = ''): ShareLinkRead {
  const fromHash = new URLSearchParams(hash.replace(/^#/, ''));
  const fromQuery = new URLSearchParams(search.replace(/^\?/, ''));
  const params = ['pipeline', 'config'].some((k) => fromHash.has(k)) ? fromHash : fromQuery;
  const key = params.has('pipeline') ? 'pipeline' : 'config';
  const encoded = params.get(key);
  if (encoded === null) return { kind: 'none' };
  const autostart = ['1', 'true', 'yes'].includes(params.get('autostart') ?? '');
  const invalid = (why: string): ShareLinkRead => ({
    kind: 'invalid',
    error: `This share link's pipeline cannot be used: ${why}. The form keeps the default pipeline${autostart ? ' and nothing was started' : ''}.`,
  });
  if (encoded === '') return invalid(`${key}= is empty`);
  if (encoded.length > MAX_ENCODED_CHARS) return invalid(`${key}= is ${encoded.length} characters long, more than a pipeline config can be`);
  let json: unknown;
  try {
    json = JSON.parse(fromBase64Url(encoded));
  } catch (e) {
    return invalid(`${key}= is not base64url-encoded JSON (${(e as Error).message}): the link may have been cut off when it was copied`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return invalid(`${key}= must decode to a JSON object`);
  let draft: unknown = json;
  let converted: string | undefined;
  if (key === 'config' && !('version' in json)) {
    const c = fromLegacy(json as Record<string, unknown>);
    if (typeof c === 'string') return invalid(`it is an older page's link with bad fields (${c})`);
    draft = c;
    converted = 'This link is from an older version of the page (routing settings only); it was converted to the routing pipeline with its numbers.';
  }
  const checked = checkDraft(draft);
  if (!checked.config) return invalid([...checked.errors].map(([path, m]) => (path ? `${path}: ${m}` : m)).join('; '));
  return converted ? { kind: 'ok', config: checked.config, autostart, converted } : { kind: 'ok', config: checked.config, autostart };
}

/** location.hash without `autostart` (so a reload does not start the run again); '' when nothing else is left. */
export function hashWithoutAutostart(hash: string): string {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  params.delete('autostart');
  const rest = params.toString();
  return rest ? `#${rest}` : '';
}
