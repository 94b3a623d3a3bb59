/**
 * A counting semaphore for CLI runs launched from one test file: each run is a whole process, and
 * a 2-core machine does not gain from more than a few at once. vitest's own concurrency limit is
 * per worker and shared with other files, so it cannot express this.
 */
export function limiter(max: number): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async (task) => {
    while (active >= max) await new Promise<void>((resolve) => waiting.push(resolve));
    active += 1;
    try {
      return await task();
    } finally {
      active -= 1;
      waiting.shift()?.();
    }
  };
}
