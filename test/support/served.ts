/**
 * Servers a test file starts, closed when its tests end, pass or fail. Call at the top level of
 * the file; wrap each start in the function it returns.
 */
import { afterAll } from 'vitest';

export interface Closable {
  close(): Promise<void>;
}

export function servedUntilAfterAll(): <T extends Closable>(started: T | Promise<T>) => Promise<T> {
  const servers: Closable[] = [];
  afterAll(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  return async (started) => {
    const server = await started;
    servers.push(server);
    return server;
  };
}
