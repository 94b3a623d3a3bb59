#!/usr/bin/env bash
# The GitHub Action's one step (action.yml): runs petstore-conformance with the action's inputs
# and writes its outputs. Kept out of action.yml so test/action.test.ts can run it as GitHub
# would: GITHUB_ACTION_PATH, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY and one INPUT_* variable per input.
# The key comes only from PETSTORE_API_KEY in the environment and is never printed or passed
# on a command line; no `set -x` here for that reason.
set -euo pipefail

fail() {
  echo "petstore-conformance action: $1" >&2
  [[ -n "${GITHUB_OUTPUT:-}" ]] && echo "exit-code=2" >> "$GITHUB_OUTPUT"
  exit 2
}

: "${GITHUB_ACTION_PATH:?GITHUB_ACTION_PATH is not set (this script is run by action.yml)}"
: "${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set}"

node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)' 2>/dev/null \
  || fail "needs Node.js 20 or later on the runner (add actions/setup-node with node-version 20 before this step)"

cli="$GITHUB_ACTION_PATH/dist/src/cli/main.js"
if [[ ! -f "$cli" ]]; then
  # A checkout of the action has no dist/: install what a run needs and build it.
  bash "$GITHUB_ACTION_PATH/scripts/action/install.sh" "$GITHUB_ACTION_PATH" || fail "could not install the action's dependencies"
fi

report_dir="${INPUT_REPORT_DIR:-conformance-report}"
args=(--report-dir "$report_dir")
[[ -n "${INPUT_BASE_URL:-}" ]] && args+=(--base-url "$INPUT_BASE_URL")
[[ -n "${INPUT_PLAN:-}" ]] && args+=(--plan "$INPUT_PLAN")
[[ -n "${INPUT_ONLY:-}" ]] && args+=(--only "$INPUT_ONLY")
[[ -n "${INPUT_MAX_REQUESTS:-}" ]] && args+=(--max-requests "$INPUT_MAX_REQUESTS")
[[ -n "${INPUT_REPORTERS:-}" ]] && args+=(--reporter "$INPUT_REPORTERS")
[[ -n "${INPUT_CONFIG:-}" ]] && args+=(--config "$INPUT_CONFIG")
[[ -n "${INPUT_PROXY:-}" ]] && args+=(--proxy "$INPUT_PROXY")
[[ -n "${INPUT_CLIENT_CERT:-}" ]] && args+=(--client-cert "$INPUT_CLIENT_CERT")
[[ -n "${INPUT_CLIENT_KEY:-}" ]] && args+=(--client-key "$INPUT_CLIENT_KEY")
# One header a line; their values are secrets, so they are only ever passed, never printed.
while IFS= read -r header || [[ -n "$header" ]]; do
  header="${header%$'\r'}"
  [[ -n "${header//[[:space:]]/}" ]] && args+=(--header "$header")
done <<< "${INPUT_HEADERS:-}"
case "${INPUT_READ_ONLY:-false}" in
  true) args+=(--read-only) ;;
  false | '') ;;
  *) fail "read-only must be true or false, got \"$INPUT_READ_ONLY\"" ;;
esac
case "${INPUT_RATE_LIMIT_SHARING:-shared}" in
  dedicated) args+=(--dedicated-key) ;;
  shared | '') ;;
  *) fail "rate-limit-sharing must be shared or dedicated, got \"$INPUT_RATE_LIMIT_SHARING\"" ;;
esac
# It implies a dedicated key; an explicit "shared" says others use the key, and so the store it could break.
case "${INPUT_RISK_BREAKING_STORE:-false}" in
  true)
    [[ "${INPUT_RATE_LIMIT_SHARING:-}" == shared ]] \
      && fail "risk-breaking-store cannot be used with rate-limit-sharing: shared: others who use the key use the store it may break; leave rate-limit-sharing empty or set it to dedicated"
    args+=(--risk-breaking-store) ;;
  false | '') ;;
  *) fail "risk-breaking-store must be true or false, got \"$INPUT_RISK_BREAKING_STORE\"" ;;
esac

# The verdict must come from this run: a report.json left by an earlier one must not answer for it.
rm -f "$report_dir/report.json" "$report_dir/report.predicate.json"

# The CLI appends its Markdown summary to GITHUB_STEP_SUMMARY itself (src/report/write.ts).
# A cancelled job (SIGINT, then SIGTERM 7.5 s later) or a timed-out one reaches this script only
# (action.yml execs it): each signal is passed on to the CLI, which stops the run at the first and
# writes its reports (exit 130 or 143), and the outputs below are still set. The CLI runs in a process
# group of its own (set -m), so a signal sent to this script's group does not reach it twice.
code=0
set -m
node "$cli" "${args[@]}" &
cli_pid=$!
set +m
trap 'kill -INT "$cli_pid" 2>/dev/null || true' INT
trap 'kill -TERM "$cli_pid" 2>/dev/null || true' TERM
trap 'kill -HUP "$cli_pid" 2>/dev/null || true' HUP
while :; do
  # A trapped signal ends `wait` early (status above 128) while the CLI goes on: wait again.
  if wait "$cli_pid"; then code=0; else code=$?; fi
  kill -0 "$cli_pid" 2>/dev/null || break
done
trap - INT TERM HUP

verdict=""
predicate=""
if [[ -f "$report_dir/report.json" ]]; then
  verdict="$(node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); process.stdout.write(typeof r.verdict === "string" ? r.verdict : "")' "$report_dir/report.json")"
  # One line of word characters, so the value cannot inject another output.
  [[ "$verdict" =~ ^[A-Za-z_-]+$ ]] || verdict=""
  # The in-toto predicate, for a keyless signer: actions/attest with predicate-path (see the README).
  # A report it cannot describe leaves the output empty; it never changes the step's exit code.
  if node "$cli" attest "$report_dir/report.json" --predicate "$report_dir/report.predicate.json" >&2; then
    predicate="$(node -p 'require("path").resolve(process.argv[1])' "$report_dir/report.predicate.json")"
  fi
elif [[ -n "${GITHUB_STEP_SUMMARY:-}" ]]; then
  if (( code > 128 )); then
    printf '## Pet Store conformance\n\nThe run was ended by a second signal before it wrote its reports (exit code %s): see the step log.\n' "$code" >> "$GITHUB_STEP_SUMMARY"
  else
    printf '## Pet Store conformance\n\nThe run could not be made (exit code %s), no report was written: see the step log.\n' "$code" >> "$GITHUB_STEP_SUMMARY"
  fi
fi

{
  echo "verdict=$verdict"
  echo "exit-code=$code"
  echo "report-dir=$(node -p 'require("path").resolve(process.argv[1])' "$report_dir")"
  echo "predicate-path=$predicate"
} >> "$GITHUB_OUTPUT"
exit "$code"
