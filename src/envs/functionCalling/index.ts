// Public surface of the function-calling (BFCL-style) environment family.
export { functionCallingFamily, ROUTING_FAMILIES, routingFamily, unseenToolsFamily } from './family';
export { TRAIN_TOOLS, UNSEEN_TOOL_NAMES, type ToolsMode } from './catalogue/toolSplits';
export { DEFAULT_WEIGHTS, FunctionCallingEnv, MAX_CALLS_PER_TURN } from './environment';
export { CATEGORY_MIX, generateFunctionCallingTask, SYSTEM_PROMPT, type GenerateOptions } from './generateTask';
export { compactToolSignatures, generateRoutingTask, isRoutingLevel, MULTI_CALL_SHARE, ROUTING_LEVEL_TOOLS, ROUTING_LEVELS, ROUTING_SYSTEM_PROMPT, ROUTING_TOOLS, type RouteTool, type RoutingLevel } from './routingTask';
export { ROUTING_VALUE_POOLS, ROUTING_VALUES, type RoutingValueType } from './routingPools';
export { canonicalCall, functionCallingExpert } from './expertPolicy';
export { checkCall, checkParameterValue, standardizeString, type CallCheck } from './bfclChecker';
export { scoreCalls, type CallComponents, type CallsVerdict } from './scoring';
export { validateCall, type CallValidation } from './argumentValidation';
export {
  BfclFormatError,
  bfclCategory,
  bfclSchemaToJsonSchema,
  bfclTasks,
  checkKindOf,
  parseBfclAnswers,
  parseBfclQuestions,
  parseJsonLines,
  type BfclQuestion,
} from './bfclLoader';
export { runEvalBfcl, EVAL_BFCL_USAGE, type CliOutput } from './evalBfclCli';
export { evaluateBfcl, formatReport, parsePredictions, type EvalReport, type ItemResult, type Prediction, type Tally } from './bfclEval';
export { CATALOGUE } from './catalogue';
export type { AcceptableValues, CatalogueCategory, CheckKind, FunctionCallingTask, GeneratedCategory, GroundTruthCall, ScoredCall } from './types';
export { GENERATED_CATEGORIES } from './types';
