// The Web Locks API's exclusive mode in memory (Node tests): requests wait in line, the holder keeps
// the lock until its callback settles, an aborted request leaves the line.
import type { LockManagerLike } from '../session';

export class MemoryLocks implements LockManagerLike {
  private readonly lines = new Map<string, { run: () => void; signal?: AbortSignal }[]>();
  private readonly held = new Set<string>();

  request(name: string, options: { signal?: AbortSignal }, callback: () => Promise<void>): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const entry = {
        signal: options.signal,
        run: () => {
          this.held.add(name);
          void callback().then(resolve, reject).finally(() => {
            this.held.delete(name);
            this.next(name);
          });
        },
      };
      options.signal?.addEventListener('abort', () => {
        const line = this.lines.get(name) ?? [];
        const i = line.indexOf(entry);
        if (i >= 0) {
          line.splice(i, 1);
          reject(Object.assign(new Error('aborted'), { name: 'AbortError' }));
        }
      });
      const line = this.lines.get(name) ?? [];
      line.push(entry);
      this.lines.set(name, line);
      if (!this.held.has(name)) this.next(name);
    });
  }

  private next(name: string): void {
    const e = this.lines.get(name)?.shift();
    e?.run();
  }
}
