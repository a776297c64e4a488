// Float64 CPU reference: every op (forward + backward), finite-difference checks, and the Qwen3 model.
export * from './ops';
export * from './modelParams';
export * from './model';
export * from './lora';
