// A headless Chromium from what the machine or node_modules already has: Debian's
// /usr/bin/chromium when present, else the build that ships inside the npm package
// @sparticuz/chromium (a brotli-compressed binary, unpacked into a directory the caller owns and
// removes). Nothing is downloaded at run time. Used by the report tests (test/support/chromium.ts)
// and by scripts/screenshot-report.mjs.
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const DEBIAN_CHROMIUM = '/usr/bin/chromium';

/** The flags every headless launch of ours uses: no sandbox (root in CI), no GPU, no network of its own. */
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** `unpackDir`: where the npm build is unpacked when Debian's is missing (about 200 MB). */
export async function findChromium(unpackDir) {
  // Chromium writes .org.chromium.Chromium.* files into TMPDIR and, when a busy machine makes it
  // close slowly, leaves some behind (seen once in the run's temporary root): give it a directory
  // the caller removes.
  const browserTmp = join(unpackDir, 'browser-tmp');
  await mkdir(browserTmp, { recursive: true });
  if (existsSync(DEBIAN_CHROMIUM)) return { executablePath: DEBIAN_CHROMIUM, env: { TMPDIR: browserTmp }, source: 'debian' };
  const { default: Chromium } = await import('@sparticuz/chromium');
  // The package unpacks into os.tmpdir(), read from TMPDIR at each call: point it at our directory
  // for the unpacking only, so the binary, its fonts and libraries go where the caller cleans.
  const saved = process.env['TMPDIR'];
  process.env['TMPDIR'] = unpackDir;
  try {
    const executablePath = await Chromium.executablePath();
    // The package's fonts.conf names /tmp/fonts; ours names the unpacked fonts, keeps the
    // machine's fonts when it has any, and caches inside unpackDir, not in /tmp.
    const config = join(unpackDir, 'pc-fonts.conf');
    await writeFile(
      config,
      `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n` +
        `  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>\n` +
        `  <dir>${join(unpackDir, 'fonts')}</dir>\n  <cachedir>${join(unpackDir, 'fonts-cache')}</cachedir>\n</fontconfig>\n`,
    );
    return { executablePath, env: { TMPDIR: browserTmp, FONTCONFIG_FILE: config }, source: 'npm' };
  } finally {
    if (saved === undefined) delete process.env['TMPDIR'];
    else process.env['TMPDIR'] = saved;
  }
}
