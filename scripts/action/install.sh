#!/usr/bin/env bash
# Makes a checkout of the action runnable (it has no dist/): installs what a run needs and builds
# dist/, as the published package ships it (tsconfig.action.json: package.json's `files`). Run by
# scripts/action/run.sh; test/action.test.ts runs it in a copy of the tracked files.
# Only the runtime dependencies (npm ci --omit=dev: no StrykerJS, linters or browsers; vitest is
# one, the suite runs through its Node API) and the lockfile-pinned TypeScript of
# scripts/action/build-tools, which a production install omits. --ignore-scripts: `prepare` would
# run the full build, which needs the dev dependencies; no runtime dependency has install scripts.
# Everything goes to stderr: the step's stdout is the CLI's.
set -euo pipefail
cd "${1:?usage: install.sh <action directory>}"
tools=scripts/action/build-tools
{
  npm ci --omit=dev --ignore-scripts --no-audit --no-fund
  npm ci --prefix "$tools" --ignore-scripts --no-audit --no-fund
  node "$tools/node_modules/typescript/bin/tsc" -p tsconfig.action.json
  node scripts/compile-schemas.mjs
  chmod +x dist/src/cli/main.js
} >&2
