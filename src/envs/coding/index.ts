// Public surface of the coding family: the family object, the task type, the environment, and the
// sandbox interface (runInSandbox picks the Node or browser back-end; runInBrowserSandbox is the
// function a page or a Playwright test can call directly).
export { codingFamily, codingLevelFamily } from './family';
export { CODING_LEVELS, LEVEL_TEMPLATE_SPLITS, type CodingLevel } from './levels';
export type { CodingCategory, CodingTask, CodingTest } from './types';
export { CodingEnv, DEFAULT_CODING_WEIGHTS, DEFAULT_MAX_CODE_CHARS, toSandboxTests, type CodingEnvOptions } from './env';
export { codingExpert, BUGGY_FIRST_PROBABILITY } from './expert';
export { generateCodingTask } from './generate';
export { TEMPLATES } from './templates/index';
export { CODING_TOOLS } from './prompts';
export {
  closeSandbox,
  detectSandboxBackend,
  DEFAULT_SANDBOX_LIMITS,
  jsonDeepEqual,
  runInBrowserSandbox,
  runInSandbox,
  type SandboxLimits,
  type SandboxResult,
  type SandboxRunner,
  type SandboxStatus,
  type SandboxTest,
  type SandboxTestResult,
  type SandboxTestStatus,
} from './sandbox/index';
