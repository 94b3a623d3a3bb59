import { describe, expect, it } from 'vitest';
import { parseCommandLine, UsageError, type RunOptions } from '../src/cli/args.js';
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

function run(argv: string[], env: NodeJS.ProcessEnv = {}): RunOptions {
  const parsed = parseCommandLine(argv, env);
  if (parsed.command !== 'run') throw new Error(`expected a run, got ${parsed.command}`);
  return parsed;
}

describe('--plan', () => {
  it('takes the published plans and an Enterprise key\'s custom:PER_MINUTE/PER_DAY, in canonical form', () => {
    expect(run(['--plan', 'pro']).plan).toBe('pro');
    expect(run(['--plan', 'Business']).plan).toBe('business');
    expect(run(['--plan', 'custom:500/50000']).plan).toBe('custom:500/50000');
    expect(run(['--plan', ' CUSTOM:0500/50000 ']).plan).toBe('custom:500/50000');
    expect(run(['--plan', 'custom:60/60']).plan).toBe('custom:60/60');
  });

  it.each([
    ['gold', /--plan must be free, pro, business or custom:PER_MINUTE\/PER_DAY \(for example custom:500\/50000\), got "gold"/],
    ['custom:', /got "custom:"/],
    ['custom:abc', /got "custom:abc"/],
    ['custom:abc/1', /got "custom:abc\/1"/],
    ['custom:500', /got "custom:500"/],
    ['custom:-5/100', /got "custom:-5\/100"/],
    ['custom:1.5/100', /got "custom:1.5\/100"/],
    ['custom:0/10', /"custom:0\/10": both limits must be at least 1; expected .*custom:PER_MINUTE\/PER_DAY/],
    ['custom:10/5', /"custom:10\/5": the daily quota \(5\) is below the per-minute limit \(10\)/],
    ['custom:2000000/9000000', /a per-minute limit above 1,000,000 is not plausible/],
    ['custom:500/99999999999999999999', /the daily quota is too large/],
  ])('refuses %s with a usage error that shows the expected form', (raw, message) => {
    const error: unknown = (() => {
      try {
        parseCommandLine(['--plan', raw], {});
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ConformanceUsageError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).toContain('custom:PER_MINUTE/PER_DAY');
    expect((error as Error).message).not.toContain('\n');
  });
});

describe('--exhaust-daily-quota sizes the budget', () => {
  it('alone: the plan\'s daily quota plus a run\'s 400 (the embedded server\'s key is a Free key)', () => {
    expect(run([]).maxRequests).toBe(400);
    expect(run(['--exhaust-daily-quota']).maxRequests).toBe(1_400);
    expect(run(['--exhaust-daily-quota', '--plan', 'pro']).maxRequests).toBe(10_400);
    expect(run(['--exhaust-daily-quota', '--plan', 'custom:500/50000']).maxRequests).toBe(50_400);
    expect(run(['--exhaust-daily-quota', '--base-url', 'http://h.test/v1', '--plan', 'business'], { PETSTORE_API_KEY: 'k' }).maxRequests).toBe(100_400);
  });

  it('keeps a larger --max-requests, and refuses a smaller one naming the number needed', () => {
    expect(run(['--exhaust-daily-quota', '--max-requests', '2000']).maxRequests).toBe(2_000);
    expect(() => run(['--exhaust-daily-quota', '--max-requests', '1399'])).toThrow(/on the free plan needs --max-requests of at least 1400 .* got 1399; leave --max-requests out/);
    expect(() => run(['--exhaust-daily-quota', '--plan', 'custom:500/50000', '--max-requests', '50000'])).toThrow(/custom:500\/50000 plan needs --max-requests of at least 50400/);
  });

  it('a remote target without --plan: the quota is unknown, so --plan or an explicit budget is needed', () => {
    const remote = ['--exhaust-daily-quota', '--base-url', 'http://h.test/v1'];
    expect(() => parseCommandLine(remote, { PETSTORE_API_KEY: 'k' })).toThrow(/needs --plan to size the run's budget/);
    expect(run([...remote, '--max-requests', '5000'], { PETSTORE_API_KEY: 'k' }).maxRequests).toBe(5_000);
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
