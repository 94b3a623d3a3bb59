/**
 * Stands in for your Pet Store service: the suite's reference server (a conforming in-memory
 * implementation), or, when EXAMPLE_VARIANT names one, one of the suite's deliberately broken
 * variants (the suite's own test runs this example against one to show a failure).
 */
import { startReferenceServer } from '../../dist/fixtures/reference-server/index.js';
import { VARIANTS, variantServerOptions } from '../../dist/fixtures/variants/index.js';

export interface ServerUnderTest {
  baseUrl: string;
  apiKey: string;
  close(): Promise<void>;
}

export async function startServer(): Promise<ServerUnderTest> {
  const name = process.env['EXAMPLE_VARIANT'];
  const variant = name === undefined || name === '' ? undefined : VARIANTS.find((v) => v.name === name);
  if (name !== undefined && name !== '' && variant === undefined) throw new Error(`no variant named "${name}"`);
  // Windows of a second or more keep the run's rate-limit checks quick (SHORT_WINDOWS: longer only
  // while a busy machine slows the run down, so that the burst still fills one).
  const server = await startReferenceServer(variantServerOptions(variant));
  return { baseUrl: server.baseUrl, apiKey: server.keys.free, close: () => server.close() };
}
