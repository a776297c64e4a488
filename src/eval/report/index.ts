// Evaluation reports: intervals, outcomes and their breakdowns, the comparison table, headline figures over seeds.
export { formatRate, meanInterval, wilson, Z95, type Rate } from './interval';
export { NO_CALL, outcomeOf, outcomesFromEpisodes, taskKeys, type Outcome } from './outcomes';
export { summarizeOutcomes, type PolicySummary } from './summary';
export { formatComparison, type TableHeader } from './table';
export { acrossSeeds, formatHeadline, formatSeedLines, type Headline, type SeedFigure } from './headline';
