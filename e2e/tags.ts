// Test tags of the e2e suite. The page's own behaviour (keyboard order, theme, reload and resume, a
// second tab, leaving, Stop, a lost device) does not depend on the adapter that runs the kernels, so
// these tests run on one adapter (llvmpipe, the faster); the kernels' adapter coverage is page.spec's
// "one run", the async GRPO run, the model checks and the ONNX comparison, which run on both.
export const ONE_ADAPTER = { tag: '@one-adapter' } as const;
