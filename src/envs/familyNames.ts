// The environment family names, without the families behind them (taskSets.ts), so configs and
// share links can name a family without loading any environment code.

export const TASK_FAMILY_NAMES = ['function-calling', 'service', 'coding'] as const;

export type TaskFamilyName = (typeof TASK_FAMILY_NAMES)[number];
