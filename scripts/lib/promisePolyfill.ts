// Promise.withResolvers (ES2024) for Node 20: libp2p 3 calls it; browsers and Node ≥ 22 have it.
export function polyfillPromiseWithResolvers(): void {
  const P = Promise as unknown as { withResolvers?: () => unknown };
  if (P.withResolvers) return;
  P.withResolvers = function withResolvers<T>() {
    let resolve!: (v: T) => void;
    let reject!: (e: unknown) => void;
    const promise = new Promise<T>((a, b) => {
      resolve = a;
      reject = b;
    });
    return { promise, resolve, reject };
  };
}
