import { describe, expect, it } from 'vitest';
import { parseCommandLine, UsageError } from '../src/cli/args.js';
import { ConformanceUsageError, resolveOptions, type ConformanceOptions } from '../src/api/options.js';

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

describe('--dedicated-key', () => {
  const keyMode = (argv: string[], options: Partial<ConformanceOptions> = {}): string => {
    const parsed = parseCommandLine(argv, {});
    if (parsed.command !== 'run') throw new Error(`not a run: ${parsed.command}`);
    return resolveOptions({ ...options, dedicatedKey: parsed.dedicatedKey, exhaustDailyQuota: parsed.exhaustDailyQuota }).keyMode;
  };

  it('is off by default (the key may be shared), on when given, and implied by --exhaust-daily-quota', () => {
    expect(keyMode([])).toBe('shared');
    expect(keyMode(['--dedicated-key'])).toBe('dedicated');
    expect(keyMode(['--exhaust-daily-quota', '--max-requests', '1400'], { maxRequests: 1_400 })).toBe('dedicated');
  });

  it('is a boolean in the library too', () => {
    expect(resolveOptions({ dedicatedKey: true }).keyMode).toBe('dedicated');
    expect(resolveOptions({}).keyMode).toBe('shared');
    expect(() => resolveOptions({ dedicatedKey: 'yes' as unknown as boolean })).toThrow(ConformanceUsageError);
  });
});
