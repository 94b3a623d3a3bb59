/**
 * Starts the server under test and hands its URL and key to the tests through provide/inject.
 * In your project, start your own service here (or point at a running one).
 */
import type { TestProject } from 'vitest/node';
import { startServer } from './server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    petstoreBaseUrl: string;
    petstoreApiKey: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startServer();
  project.provide('petstoreBaseUrl', server.baseUrl);
  project.provide('petstoreApiKey', server.apiKey);
  return () => server.close();
}
