// Models shipped with the app in public/models/ (served beside the page, so loading one is a
// same-origin fetch, not a model-hub download). Today one: the copy chain's result
// (scripts/lib/copyChain.ts) — a `nano` trained only on task-free copy drills (random letters, an
// `echo` tool) and induction sequences, so it copies an unseen string into a call. It plays the part
// Qwen3-base plays in the paper: a pretrained start that every routing run can fine-tune, without
// spending the chain's 91 min of llvmpipe first. Its provenance.json (written by
// `npm run copy-chain -- --out DIR --bundle`) names the chain's phases and the weights' SHA-256;
// scripts/copyBase.test.ts checks both against the code.

export interface BundledModel {
  /** Folder under public/models/ and the id the page and `npm run demo -- --base` use. */
  id: string;
  /** Button text. */
  label: string;
  /** What it is, for the page's hint. */
  description: string;
  /** The preset whose shape it has. */
  preset: 'nano';
}

export const COPY_BASE: BundledModel = {
  id: 'nano-copy-base',
  label: 'nano copy base (bundled, 1.7 MB)',
  description: 'nano pretrained on copy drills only (random strings, no task data): copies unseen values into calls',
  preset: 'nano',
};

export const BUNDLED_MODELS: readonly BundledModel[] = [COPY_BASE];

/** The folder's URL relative to the page (the page's own origin; Vite serves public/ at the root). */
export function bundledModelPath(m: BundledModel): string {
  return `models/${m.id}/`;
}
