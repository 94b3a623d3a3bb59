/**
 * The CLI's one line for an error before it exits 2, kept apart from run-command.ts so that main.ts
 * can print it without loading the run's modules.
 */
function oneLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return (text.split('\n')[0] ?? text).trim();
}

/** The user's mistake as it is, anything else as an internal error. */
export function failureLine(error: unknown): string {
  const usage = typeof error === 'object' && error !== null && 'exitCode' in error && error.exitCode === 2;
  return `petstore-conformance: ${usage ? '' : 'internal error: '}${oneLine(error)}\n`;
}
