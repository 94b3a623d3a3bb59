/**
 * Every relative link in README.md and docs/ leads somewhere: the file or directory exists, and an
 * anchor (`page.md#section`, `#section`) names a heading of that page as GitHub renders it. The
 * README sends readers to the docs for everything but the first five minutes, so a page renamed
 * or a heading reworded without its links is a reader stranded. The README itself stays short and
 * links every page of docs/.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SCORE_PAGE, withReadmeBlock } from '../mutation/report.js';

const ROOT = resolve(import.meta.dirname, '..');

/**
 * Pages another change generates (docs/cli.md, from the option table). Until that change is merged
 * the file is absent and a link to it is not judged; once it exists, its links and anchors are.
 */
const GENERATED_ELSEWHERE = new Set(['docs/cli.md']);

/** The Markdown files a reader follows links through. */
function pages(): string[] {
  const docs = readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`);
  return ['README.md', ...docs];
}

/** Text outside fenced code blocks and code spans: a link shown as code is no link. */
function prose(markdown: string): string {
  let fenced = false;
  const lines = markdown.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line;
  });
  return lines.join('\n').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2. */
function slugOf(heading: string): string {
  return heading
    .replace(/`/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors a page offers: one per heading (outside code blocks), and explicit `<a id>`/`<a name>`. */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading !== null) {
      const base = slugOf(heading[1] ?? '');
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      anchors.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1] ?? '');
  }
  return anchors;
}

/** The relative link targets of a page: `[text](target)` and `![alt](target)`, without a title. */
function relativeLinks(markdown: string): string[] {
  const targets = [...prose(markdown).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1] ?? '');
  return targets.filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t));
}

/** What is wrong with one link of `page`, or undefined when it resolves. */
function brokenLink(page: string, target: string): string | undefined {
  const [pathPart = '', anchor] = target.split('#', 2);
  const file = pathPart === '' ? page : relative(ROOT, resolve(ROOT, dirname(page), decodeURIComponent(pathPart)));
  const absolute = join(ROOT, file);
  if (!existsSync(absolute)) return GENERATED_ELSEWHERE.has(file) ? undefined : `${page}: ${target}: no file ${file}`;
  if (anchor === undefined || anchor === '') return undefined;
  if (statSync(absolute).isDirectory() || !file.endsWith('.md')) return `${page}: ${target}: an anchor into ${file}, which has no headings`;
  return anchorsOf(readFileSync(absolute, 'utf8')).has(decodeURIComponent(anchor)) ? undefined : `${page}: ${target}: ${file} has no heading #${anchor}`;
}

describe('relative links in README.md and docs/', () => {
  it('reads links and anchors as GitHub renders them', () => {
    expect(slugOf("The server's clock")).toBe('the-servers-clock');
    expect(slugOf('Names a store may not survive (opt-in)')).toBe('names-a-store-may-not-survive-opt-in');
    expect(slugOf('Keyless, in GitHub Actions (Sigstore)')).toBe('keyless-in-github-actions-sigstore');
    expect(slugOf('`--max-wait` and 429s')).toBe('--max-wait-and-429s');
    expect([...anchorsOf('# A\n## B\n```sh\n# not a heading\n```\n## B\n')]).toEqual(['a', 'b', 'b-1']);
    expect(relativeLinks('[a](docs/ci.md#exit-codes) ![s](docs/report.png) [w](https://example.com) `[c](no.md)`\n```\n[d](no.md)\n```')).toEqual([
      'docs/ci.md#exit-codes',
      'docs/report.png',
    ]);
    expect(brokenLink('README.md', 'docs/no-such-page.md')).toMatch(/no file docs\/no-such-page\.md/);
    expect(brokenLink('README.md', '#no-such-heading')).toMatch(/has no heading/);
  });

  it('every relative link names a file that exists and a heading it has', () => {
    const files = pages();
    expect(files.length).toBeGreaterThan(1);
    let links = 0;
    const broken: string[] = [];
    for (const page of files) {
      for (const target of relativeLinks(readFileSync(join(ROOT, page), 'utf8'))) {
        links += 1;
        const problem = brokenLink(page, target);
        if (problem !== undefined) broken.push(problem);
      }
    }
    // The pages do link to each other, so the scan reads what it means to.
    expect(links).toBeGreaterThan(20);
    expect(broken).toEqual([]);
  });
});

describe('README.md, the five-minute read', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

  it('stays under 300 lines: the reference belongs in docs/', () => {
    expect(readme.split('\n').length).toBeLessThan(300);
  });

  it('links every page of docs/, so none is found only by browsing the directory', () => {
    const linked = new Set(relativeLinks(readme).map((t) => t.split('#')[0]));
    const orphans = pages().filter((page) => page !== 'README.md' && !linked.has(page));
    expect(orphans).toEqual([]);
  });
});

describe('the mutation score\'s page', () => {
  it('holds the block npm run mutate -- --readme writes', () => {
    expect(withReadmeBlock(readFileSync(join(ROOT, SCORE_PAGE), 'utf8'), 'new block')).toContain('new block');
  });
});
