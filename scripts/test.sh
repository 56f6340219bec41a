#!/usr/bin/env bash
# Runs every test suite: the linter, the OpenAPI document's linters (Redocly, Spectral), server (bun test on SQLite, the PostgreSQL tests, then the whole
# server suite again on PostgreSQL), the compiled binary's smoke test, hostile-input suite and a
# client generated from its served document (each on SQLite and on PostgreSQL), and the browser
# tests (Playwright + Debian's Chromium against the binary; then the main flows again with the
# binary on PostgreSQL). Ends with one line
# "N passed, N failed" totalling all suites, and exits non-zero if anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."

# A clean environment, so the suite cannot pass on something only one machine has: the script
# starts itself again through `env -i` with PATH, HOME and CI (when set) and nothing else, and
# sets every variable the suites read itself below. THREADLINK_TEST_ENV marks the second start.
if [ "${THREADLINK_TEST_ENV:-}" != "clean" ]; then
  exec env -i PATH="$PATH" HOME="$HOME" ${CI:+CI="$CI"} THREADLINK_TEST_ENV=clean LANG=C.UTF-8 bash "$0" "$@"
fi
# The project's own tools first (bun, playwright, biome), also when run as `bash scripts/test.sh`.
export PATH="$PWD/node_modules/.bin:$PATH"
mkdir -p .tmp

# Ports free on this machine right now, one per server the suites start, so a port another
# program holds (or a developer's habit) changes nothing: the screenshots freeze the port.
free_port() { node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
export E2E_PORT SMOKE_PORT HOSTILE_PORT API_CLIENT_PORT
E2E_PORT=$(free_port)
SMOKE_PORT=$(free_port)
HOSTILE_PORT=$(free_port)
API_CLIENT_PORT=$(free_port)

bash scripts/ensure-chromium.sh || { echo "0 passed, 1 failed"; exit 1; }

passed=0
failed=0
status=0

# A finished run's counts into p and f: bun test's "N pass" / "N fail", or a script's closing
# "NAME: N passed, M failed" (no such line: it died early, one failure).
bun_counts() {
  p=$(grep -Eo '^ *[0-9]+ pass' "$1" | tail -1 | grep -Eo '[0-9]+' || echo 0)
  f=$(grep -Eo '^ *[0-9]+ fail' "$1" | tail -1 | grep -Eo '[0-9]+' || echo 0)
}
script_counts() {
  local line
  line=$(grep -E "^$1: [0-9]+ passed, [0-9]+ failed\$" "$2" | tail -1)
  p=$(echo "$line" | grep -Eo '[0-9]+ passed' | grep -Eo '[0-9]+' || echo 0)
  f=$(echo "$line" | grep -Eo '[0-9]+ failed' | grep -Eo '[0-9]+' || echo 1)
}
smoke_counts() { script_counts smoke "$1"; }
# A Playwright run's counts from its JSON report: `playwright_counts RESULTS EXIT_CODE`. A run
# that failed without a failing test (the web server could not start, a global error) is one
# failure, so the closing line never reads "0 failed" for a failed run.
playwright_counts() {
  if [ -f "$1" ]; then
    read -r p f < <(node -e 'const s=require(require("node:path").resolve(process.argv[1])).stats; console.log(s.expected + s.flaky, s.unexpected)' "$1")
  else
    p=0; f=0
  fi
  if [ "$2" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
}
hostile_counts() { script_counts hostile "$1"; }
api_client_counts() { script_counts api-client "$1"; }

# A section that needs PostgreSQL (installed when missing): `with_postgres COUNTS LOG COMMAND…`.
# No PostgreSQL, or a run that passed nothing (no file found, or it died before its summary),
# is a failure: these never skip.
with_postgres() {
  local counts=$1 log=$2
  shift 2
  if bash scripts/ensure-postgres.sh; then
    "$@" 2>&1 | tee "$log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
    "$counts" "$log"
    if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then f=1; status=1; fi
  else
    echo "PostgreSQL could not be installed (scripts/ensure-postgres.sh)"
    p=0; f=1; status=1
  fi
  passed=$((passed + p)); failed=$((failed + f))
}

# Counted as one test: the linter passes (1 passed) or prints its violations (1 failed).
echo "== Lint (Biome: correctness and import boundaries; knip: unused files, exports, dependencies)"
if npm run --silent lint; then passed=$((passed + 1)); else failed=$((failed + 1)); status=1; fi

# Counted as one test each: the served OpenAPI document, written by the app itself
# (scripts/openapi.ts), passes Redocly's recommended rules as errors (redocly.yaml) and
# Spectral's spectral:oas with warnings failing (.spectral.yaml): 0 errors and 0 warnings. Both
# read only local files (no network at lint time; checked with `unshare -n`); telemetry and the
# update check are off (package.json openapi:redocly, openapi:spectral).
echo "== OpenAPI lint (Redocly, Spectral spectral:oas; the served document)"
if bun run scripts/openapi.ts .tmp/openapi.json; then
  if npm run --silent openapi:redocly; then passed=$((passed + 1)); else failed=$((failed + 1)); status=1; fi
  if npm run --silent openapi:spectral; then passed=$((passed + 1)); else failed=$((failed + 1)); status=1; fi
else
  echo "the document could not be written (scripts/openapi.ts)"
  failed=$((failed + 2)); status=1
fi

echo "== Server tests (bun test)"
bun test --timeout 20000 2>&1 | tee .tmp/unit.log
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
bun_counts .tmp/unit.log
passed=$((passed + p)); failed=$((failed + f))

echo "== PostgreSQL tests (bun test on *.pg.test.ts; throwaway PostgreSQL 15 clusters, installed when missing)"
# bunfig.toml keeps these files out of the run above; the flags below replace its ignore list.
# The fail-over tests run deploy/haproxy.cfg and deploy/nginx.conf for real (they fail without
# haproxy or nginx, never skip).
bash scripts/ensure-balancers.sh || echo "haproxy or nginx could not be installed (scripts/ensure-balancers.sh)"
with_postgres bun_counts .tmp/pg.log \
  bun test --timeout 20000 --path-ignore-patterns='web/e2e/**' --path-ignore-patterns='dist/**' --path-ignore-patterns='test-results/**' .pg.test

echo "== Server tests on PostgreSQL (the whole bun test with TEST_BACKEND=postgres: a throwaway cluster per test process)"
# The same files as the first run, each setup() on a fresh PostgreSQL database; tests about
# SQLite's internals skip there, saying why.
with_postgres bun_counts .tmp/unit-pg.log env TEST_BACKEND=postgres bun test --timeout 20000

echo "== Build the binary"
if ! bun run scripts/build.ts; then
  echo "0 passed, $((failed + 1)) failed"
  exit 1
fi

echo "== Binary smoke test"
bun run scripts/smoke.ts 2>&1 | tee .tmp/smoke.log
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
smoke_counts .tmp/smoke.log
passed=$((passed + p)); failed=$((failed + f))

echo "== Binary smoke test on PostgreSQL (DATABASE_URL on a throwaway cluster, which smoke.ts starts and removes)"
with_postgres smoke_counts .tmp/smoke-pg.log env SMOKE_BACKEND=postgres bun run scripts/smoke.ts

echo "== Hostile-input suite (compiled binary; one test per request, plus whole-run checks)"
bun run scripts/hostile.ts 2>&1 | tee .tmp/hostile.log
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
hostile_counts .tmp/hostile.log
passed=$((passed + p)); failed=$((failed + f))

echo "== Hostile-input suite on PostgreSQL (the binary with DATABASE_URL on a throwaway cluster)"
with_postgres hostile_counts .tmp/hostile-pg.log env HOSTILE_BACKEND=postgres bun run scripts/hostile.ts

echo "== Generated API client (openapi-typescript + openapi-fetch from the binary's /api/openapi.json: type-checked, then every flow of issues 23 and 24)"
bun run scripts/api-client/run.ts 2>&1 | tee .tmp/api-client.log
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
api_client_counts .tmp/api-client.log
passed=$((passed + p)); failed=$((failed + f))

echo "== Generated API client on PostgreSQL (the binary with DATABASE_URL on a throwaway cluster)"
with_postgres api_client_counts .tmp/api-client-pg.log env API_CLIENT_BACKEND=postgres bun run scripts/api-client/run.ts

echo "== Browser tests (Playwright, Chromium, compiled binary)"
rm -f .tmp/e2e-results.json
E2E_DATA_DIR="" npx --no-install playwright test
e2e=$?
[ $e2e -eq 0 ] || status=1
playwright_counts .tmp/e2e-results.json $e2e
passed=$((passed + p)); failed=$((failed + f))

echo "== Browser tests on PostgreSQL (the @main-flow tests; the binary with DATABASE_URL on a throwaway cluster)"
# scripts/e2e-postgres.ts starts the cluster, runs the binary on it and removes the cluster after.
# Its own results file and output folder, so the run above keeps its report and screenshots.
rm -f .tmp/e2e-pg-results.json
if bash scripts/ensure-postgres.sh; then
  E2E_BACKEND=postgres E2E_DATA_DIR="" E2E_RESULTS=.tmp/e2e-pg-results.json E2E_OUTPUT_DIR=test-results/postgres npx --no-install playwright test
  e2e=$?
else
  echo "PostgreSQL could not be installed (scripts/ensure-postgres.sh)"
  e2e=1
fi
[ $e2e -eq 0 ] || status=1
playwright_counts .tmp/e2e-pg-results.json $e2e
# Nothing selected (the tags gone) passes nothing: a failure, not a quiet "0 passed".
if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then f=1; status=1; fi
passed=$((passed + p)); failed=$((failed + f))

# CI shows only the run's tail: name every failure again here, just above the closing line.
if [ "$failed" -ne 0 ]; then
  echo "== Failures"
  # bun test prints each failure twice (where it ran, and in its summary): once here.
  grep -h -E '^\(fail\)' .tmp/unit.log .tmp/pg.log .tmp/unit-pg.log 2>/dev/null | awk '!seen[$0]++' | sed 's/^/  /' | cut -c1-300
  grep -h -E '^ *✗ ' .tmp/smoke.log .tmp/smoke-pg.log .tmp/hostile.log .tmp/hostile-pg.log .tmp/api-client.log .tmp/api-client-pg.log 2>/dev/null | cut -c1-300
  for r in .tmp/e2e-results.json .tmp/e2e-pg-results.json; do
    [ -f "$r" ] && node -e '
      const walk = (s, t) => { for (const x of s.suites ?? []) walk(x, t); for (const sp of s.specs ?? []) for (const ts of sp.tests) if (ts.status === "unexpected") t.push(`  ${sp.file}:${sp.line} ${sp.title}`); return t; };
      const r = require(require("node:path").resolve(process.argv[1]));
      for (const l of (r.suites ?? []).reduce((t, s) => walk(s, t), [])) console.log(l);' "$r"
  done
fi
[ "$failed" -eq 0 ] || status=1
echo "$passed passed, $failed failed"
exit $status
