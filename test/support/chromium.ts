/**
 * A headless Chromium for the report tests from what the machine or node_modules already has
 * (Debian's, else the build inside the npm package @sparticuz/chromium; nothing is downloaded at
 * run time): scripts/lib/chromium.mjs, which scripts/screenshot-report.mjs uses too.
 */
export { CHROMIUM_ARGS, findChromium, type ChromiumBuild } from '../../scripts/lib/chromium.mjs';
