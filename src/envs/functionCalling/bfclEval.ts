// Scores a predictions file against BFCL tasks: accuracy per category and overall, with the AST
// checker of scoring.ts (an item is correct iff exact_match is 1).
import { BfclFormatError, parseJsonLines } from './bfclLoader';
import { scoreCalls } from './scoring';
import type { FunctionCallingTask, ScoredCall } from './types';

/** One line of a predictions file: the calls the model made for an item ([] = no call). */
export interface Prediction {
  /** Item id, as in the question file. */
  id: string;
  /** Calls of the model's first turn. */
  calls: ScoredCall[];
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function toCall(raw: unknown, where: string): ScoredCall {
  if (!isRecord(raw) || typeof raw.name !== 'string') throw new BfclFormatError(`${where}: must be {"name": "...", "arguments": {...}}`);
  let args: unknown = raw.arguments ?? {};
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args);
    } catch {
      throw new BfclFormatError(`${where}: "arguments" is a string that is not JSON; write the arguments as a JSON object`);
    }
  }
  if (!isRecord(args)) throw new BfclFormatError(`${where}: "arguments" must be a JSON object`);
  return { name: raw.name, arguments: args };
}

/** Parses a predictions JSONL file: {"id": "...", "calls": [{"name": "...", "arguments": {...}}]} per line. */
export function parsePredictions(text: string, file: string): Prediction[] {
  const seen = new Set<string>();
  return parseJsonLines(text, file).map(({ line, value }) => {
    const where = `${file}:${line}`;
    if (!isRecord(value) || typeof value.id !== 'string') throw new BfclFormatError(`${where}: expected {"id": "...", "calls": [...]}`);
    if (seen.has(value.id)) throw new BfclFormatError(`${where}: id "${value.id}" appears twice; keep one prediction per id`);
    seen.add(value.id);
    const calls = value.calls ?? [];
    if (!Array.isArray(calls)) throw new BfclFormatError(`${where}: "calls" must be a list (use [] when the model made no call)`);
    return { id: value.id, calls: calls.map((c, i) => toCall(c, `${where} calls[${i}]`)) };
  });
}

/** Correct / total counts. */
export interface Tally {
  /** Items the checker accepted. */
  correct: number;
  /** Items scored. */
  total: number;
}

/** Outcome of one item. */
export interface ItemResult {
  /** Item id. */
  id: string;
  /** Item category. */
  category: string;
  /** True iff the AST checker accepted the prediction. */
  correct: boolean;
  /** The checker's reasons when wrong ('missing prediction' when the file had none). */
  errors: string[];
}

/** Accuracy per category and overall. */
export interface EvalReport {
  /** Category → tally, in first-seen order. */
  perCategory: Map<string, Tally>;
  /** All items. */
  overall: Tally;
  /** Ids with no prediction (scored as wrong). */
  missing: string[];
  /** One result per task, in question order. */
  items: ItemResult[];
}

/** Scores predictions; a prediction whose id is not among the tasks throws (wrong file pairing). */
export function evaluateBfcl(tasks: FunctionCallingTask[], predictions: Prediction[], predictionsLabel = 'the predictions file'): EvalReport {
  const byId = new Map(predictions.map((p) => [p.id, p]));
  const taskIds = new Set(tasks.map((t) => t.id));
  const unknown = predictions.filter((p) => !taskIds.has(p.id)).map((p) => p.id);
  if (unknown.length > 0) {
    const shown = unknown.slice(0, 5).map((id) => `"${id}"`).join(', ');
    throw new BfclFormatError(`${predictionsLabel} has ${unknown.length} id(s) not in the question files (${shown}${unknown.length > 5 ? ', …' : ''}); pass the question file(s) these predictions were made for`);
  }
  const perCategory = new Map<string, Tally>();
  const overall: Tally = { correct: 0, total: 0 };
  const missing: string[] = [];
  const items: ItemResult[] = [];
  for (const task of tasks) {
    const prediction = byId.get(task.id);
    let correct = false;
    let errors: string[];
    if (prediction === undefined) {
      missing.push(task.id);
      errors = ['missing prediction'];
    } else {
      const verdict = scoreCalls(task, prediction.calls);
      correct = verdict.valid;
      errors = verdict.errors;
    }
    const tally = perCategory.get(task.category) ?? { correct: 0, total: 0 };
    tally.total++;
    overall.total++;
    if (correct) {
      tally.correct++;
      overall.correct++;
    }
    perCategory.set(task.category, tally);
    items.push({ id: task.id, category: task.category, correct, errors });
  }
  return { perCategory, overall, missing, items };
}

function percent(t: Tally): string {
  return t.total === 0 ? '-' : `${((100 * t.correct) / t.total).toFixed(1)}%`;
}

/** Report lines; the last line is always `accuracy: X/Y`. */
export function formatReport(report: EvalReport): string[] {
  const lines = [...report.perCategory].map(([category, t]) => `${category}: ${t.correct}/${t.total} (${percent(t)})`);
  lines.push(`accuracy: ${report.overall.correct}/${report.overall.total}`);
  return lines;
}
