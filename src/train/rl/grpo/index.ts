// GRPO for multi-turn tool-using agents: config, rewards, advantages, the host-side loss and metrics.
export * from './config';
export * from './rewards';
export * from './advantages';
export * from './aggregation';
export * from './loss';
export * from './entropy';
export * from './credit';
export * from './metrics';
