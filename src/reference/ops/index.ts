// Float64 CPU reference ops: the ground truth every GPU kernel is tested against.
export * from './matmul';
export * from './embedding';
export * from './rmsnorm';
export * from './rope';
export * from './attention';
export * from './swiglu';
export * from './residual';
export * from './crossEntropy';
export * from './adamw';
export * from './gradNorm';
export * from './finiteDiff';
export * from './random';
