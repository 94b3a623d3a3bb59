import { readFileSync } from 'node:fs';
import { packagePath } from './interface/package-root.js';

let cached: { name: string; version: string } | undefined;

/** Name and version from package.json, so reports, --version and the User-Agent never disagree with the package. */
export function toolInfo(): { name: string; version: string } {
  if (cached === undefined) {
    const pkg = JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { name: string; version: string };
    cached = { name: pkg.name, version: pkg.version };
  }
  return cached;
}
