export * from './errors';
export * from './device';
export * from './tensor';
export * from './bufferPool';
export * from './pipelineCache';
export * from './runtime';
