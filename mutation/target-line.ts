import type { TargetLine } from './serve.js';

/**
 * Why the CLI cannot be pointed at the server the line describes, if it cannot: a mutant of the
 * address the fixture reports to the harness (not anything on the wire) must be neither killed by
 * the CLI refusing the URL (exit 2) nor judged against another server (an empty --base-url is the
 * CLI's own embedded one).
 */
export function targetLineProblem(target: TargetLine): string | undefined {
  let url: URL;
  try {
    url = new URL(target.baseUrl);
  } catch {
    return `the server reported no usable base URL (${JSON.stringify(target.baseUrl)})`;
  }
  if (url.protocol !== 'http:' || url.hostname === '' || url.port === '') return `the server reported no usable base URL (${JSON.stringify(target.baseUrl)})`;
  if (target.apiKey === '') return 'the server reported no API key';
  return undefined;
}
