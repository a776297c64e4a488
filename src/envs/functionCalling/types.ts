// Types of the function-calling (BFCL-style) family: tasks, ground truth in BFCL's
// possible-answer format, and how a task is checked.
import type { ChatMessage, TaskBase, ToolSpec } from '../types';

/** Categories our generators produce (BFCL's names) plus the tiny-model routing sets (one call; two calls). */
export type GeneratedCategory = 'simple' | 'multiple' | 'parallel' | 'parallel_multiple' | 'irrelevance' | 'route' | 'route_multi';

/** The BFCL-style categories of the catalogue generator (the routing sets are separate). */
export type CatalogueCategory = Exclude<GeneratedCategory, 'route' | 'route_multi'>;

/** The catalogue categories in the order used by mixes and reports. */
export const GENERATED_CATEGORIES: readonly CatalogueCategory[] = ['simple', 'multiple', 'parallel', 'parallel_multiple', 'irrelevance'];

/**
 * Which BFCL checker scores a task:
 * - simple: exactly one call, checked against the one expected call;
 * - multiple: same as simple, but several functions were offered;
 * - parallel: N calls matched to N expected calls in any order;
 * - irrelevance: correct iff no call is made;
 * - relevance: correct iff at least one call is made (BFCL live_relevance).
 */
export type CheckKind = 'simple' | 'multiple' | 'parallel' | 'irrelevance' | 'relevance';

/** Acceptable values of one parameter; `""` among them means the parameter may be omitted. */
export type AcceptableValues = unknown[];

/** One expected call in BFCL format: `{ functionName: { param: [acceptable values] } }`. */
export type GroundTruthCall = Record<string, Record<string, AcceptableValues>>;

export interface FunctionCallingTask extends TaskBase {
  family: 'function-calling';
  /** Generated category, or the BFCL id prefix for loaded items (e.g. 'live_simple', 'simple_python'). */
  category: string;
  /** Which checker applies (derived from the category). */
  check: CheckKind;
  /** Short system instruction; the tool list itself travels in `tools` (the chat template puts it in the system block). */
  system: string;
  /** The conversation before the first assistant turn (user turns, sometimes a BFCL system message). */
  question: ChatMessage[];
  /** Tools offered this episode, as OpenAI-style JSON schemas. */
  tools: ToolSpec[];
  /** Expected calls of the first calling turn (BFCL possible answer); empty for irrelevance. */
  groundTruth: GroundTruthCall[];
  /** Seed of the simulated tool results, so replays return the same observations. */
  resultSeed: number;
  /** When true the episode ends after the first assistant turn (BFCL single-turn; used by the routing set). */
  singleTurn: boolean;
  /**
   * Generated routing tasks only: the phrasings ({x} templates of routingTemplates.ts) the request was
   * written from, one per call (train-only rewrites — wrapped, framed, edited, random values — keep
   * the phrasing they started from). Reports break success down by them: a split holds few
   * phrasings, and tasks of one phrasing tend to succeed or fail together.
   */
  phrasings?: string[];
}

/** A function call as scored: name plus parsed arguments (same shape as the parser's ToolCall). */
export interface ScoredCall {
  /** Function name the model called. */
  name: string;
  /** Arguments object the model sent. */
  arguments: Record<string, unknown>;
}
