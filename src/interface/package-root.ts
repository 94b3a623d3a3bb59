/**
 * Locates files shipped with the package (schemas/…). The code runs from two depths: src/interface/
 * (TypeScript under vitest) and dist/src/interface/ (compiled), so a fixed relative URL would be
 * right in one layout and wrong in the other. Walking up to package.json works in both, and also
 * when the package is installed under node_modules.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cachedRoot: string | undefined;

export function packageRoot(): string {
  if (cachedRoot !== undefined) return cachedRoot;
  const start = dirname(fileURLToPath(import.meta.url));
  let dir = start;
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) {
      cachedRoot = dir;
      return dir;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`No package.json found above ${start}`);
    dir = parent;
  }
}

/** Absolute path of a file given relative to the package root, e.g. packagePath('schemas', 'openapi.yaml'). */
export function packagePath(...segments: string[]): string {
  return join(packageRoot(), ...segments);
}
