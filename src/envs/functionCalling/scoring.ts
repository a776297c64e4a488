// Scores the calls of one assistant turn against a task's ground truth. The same function scores
// generated tasks (reward components) and loaded BFCL items (eval-bfcl accuracy = exact_match).
import type { ToolSpec } from '../types';
import { maxWeightAssignment } from './assignment';
import { checkCall, expectedCallParts, type CallCheck } from './bfclChecker';
import type { FunctionCallingTask, ScoredCall } from './types';

/** Calls beyond this many are not matched (they still count against function_choice/arguments). */
export const MAX_SCORED_CALLS = 64;

/** Call-level reward components, each in [0, 1]. */
export interface CallComponents {
  /** Multiset overlap of called vs expected function names ÷ max(#expected, #called); irrelevance: 1 iff no call. */
  function_choice: number;
  /** Best matching: Σ over expected calls of (correct params ÷ params) ÷ max(#expected, #called); irrelevance: 1 iff no call. */
  arguments: number;
  /** 1 iff BFCL's AST checker accepts the whole turn (right count, every call valid, any order). */
  exact_match: number;
}

/** Verdict for one turn of calls. */
export interface CallsVerdict {
  /** True iff exact_match is 1. */
  valid: boolean;
  /** Why the turn is not accepted (empty when valid). */
  errors: string[];
  /** The call-level reward components. */
  components: CallComponents;
}

const ALL: CallComponents = { function_choice: 1, arguments: 1, exact_match: 1 };
const NONE: CallComponents = { function_choice: 0, arguments: 0, exact_match: 0 };

function findFunction(tools: ToolSpec[], name: string): ToolSpec['function'] | undefined {
  return tools.find((t) => t.function.name === name)?.function;
}

function nameOverlap(expected: string[], called: string[]): number {
  const counts = new Map<string, number>();
  for (const n of expected) counts.set(n, (counts.get(n) ?? 0) + 1);
  let overlap = 0;
  for (const n of called) {
    const c = counts.get(n) ?? 0;
    if (c > 0) {
      overlap++;
      counts.set(n, c - 1);
    }
  }
  return overlap;
}

/** Scores `calls` (the first calling turn; [] when the model never called) for `task`. */
export function scoreCalls(task: Pick<FunctionCallingTask, 'check' | 'tools' | 'groundTruth'>, calls: ScoredCall[]): CallsVerdict {
  if (task.check === 'irrelevance') {
    if (calls.length === 0) return { valid: true, errors: [], components: { ...ALL } };
    return { valid: false, errors: [`called ${calls.map((c) => c.name).join(', ')}, but no offered function fits the request: answer in text instead`], components: { ...NONE } };
  }
  if (task.check === 'relevance') {
    if (calls.length > 0) return { valid: true, errors: [], components: { ...ALL } };
    return { valid: false, errors: ['no function was called, but the request needs one'], components: { ...NONE } };
  }
  const gold = task.groundTruth;
  const expectedNames = gold.map((g) => expectedCallParts(g).name);
  if (calls.length === 0) {
    return { valid: false, errors: [`no function was called; expected ${expectedNames.join(', ')}`], components: { ...NONE } };
  }
  const denominator = Math.max(gold.length, calls.length);
  const function_choice = nameOverlap(expectedNames, calls.map((c) => c.name)) / denominator;
  const scored = calls.slice(0, MAX_SCORED_CALLS);
  const checks: CallCheck[][] = gold.map((g, i) => scored.map((c) => checkCall(findFunction(task.tools, expectedNames[i]), c, g)));
  const argumentShare = checks.map((row) => row.map((c) => c.paramsCorrect / c.paramsTotal));
  const args = maxWeightAssignment(argumentShare).total / denominator;
  const errors: string[] = [];
  let exact = false;
  // BFCL: simple needs exactly one call; multiple/parallel need as many calls as expected.
  if (calls.length !== gold.length) {
    errors.push(`wrong number of functions: called ${calls.length}, expected ${gold.length}`);
  } else {
    const matched = maxWeightAssignment(checks.map((row) => row.map((c) => (c.valid ? 1 : 0))));
    exact = matched.total === gold.length;
    if (!exact) {
      matched.rowToCol.forEach((col, i) => {
        if (col !== -1) return;
        const reasons = checks[i].filter((c) => c.error !== undefined).map((c) => c.error as string);
        const best = reasons.find((r) => !r.startsWith('Function name')) ?? reasons[0] ?? 'no matching call';
        errors.push(`expected call ${i + 1} (${expectedNames[i]}): ${best}`);
      });
    }
  }
  return {
    valid: exact,
    errors,
    components: { function_choice, arguments: Math.min(1, Math.max(0, args)), exact_match: exact ? 1 : 0 },
  };
}
