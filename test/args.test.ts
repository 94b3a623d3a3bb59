import { describe, expect, it } from 'vitest';
import { parseCommandLine, UsageError } from '../src/cli/args.js';

function reporters(argv: string[]): unknown {
  const parsed = parseCommandLine(argv, {});
  return 'reporters' in parsed ? parsed.reporters : undefined;
}

describe('--reporter', () => {
  it('takes names in any case, and always writes json first', () => {
    expect(reporters(['--reporter', 'JSON'])).toEqual(['json']);
    expect(reporters(['--reporter', 'JUnit, HTML'])).toEqual(['json', 'junit', 'html']);
    expect(reporters(['report', 'r.json', '--reporter', 'Earl'])).toEqual(['json', 'earl']);
  });

  it('refuses an empty item or an unknown name with a usage error', () => {
    for (const raw of ['junit,,html', ',json', 'json,', ' ']) expect(() => parseCommandLine(['--reporter', raw], {}), raw).toThrow(UsageError);
    expect(() => parseCommandLine(['--reporter', 'junit,,html'], {})).toThrow('--reporter has an empty item in "junit,,html"');
    expect(() => parseCommandLine(['--reporter', 'PDF'], {})).toThrow('unknown reporter "pdf"');
  });
});
