#!/usr/bin/env bash
# Runs every test suite: the linter, server (bun test on SQLite, the PostgreSQL tests, then the whole
# server suite again on PostgreSQL), the compiled binary's smoke test and hostile-input suite (each on
# SQLite and on PostgreSQL), and the browser
# tests (Playwright + Debian's Chromium against the binary; then the main flows again with the
# binary on PostgreSQL). Ends with one line
# "N passed, N failed" totalling all suites, and exits non-zero if anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p .tmp

bash scripts/ensure-chromium.sh || { echo "0 passed, 1 failed"; exit 1; }

passed=0
failed=0
status=0

# Counted as one test: the linter passes (1 passed) or prints its violations (1 failed).
echo "== Lint (Biome: correctness and import boundaries; knip: unused files, exports, dependencies)"
if npm run --silent lint; then passed=$((passed + 1)); else failed=$((failed + 1)); status=1; fi

echo "== Server tests (bun test)"
bun test 2>&1 | tee .tmp/unit.log
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
p=$(grep -Eo '^ *[0-9]+ pass' .tmp/unit.log | tail -1 | grep -Eo '[0-9]+' || echo 0)
f=$(grep -Eo '^ *[0-9]+ fail' .tmp/unit.log | tail -1 | grep -Eo '[0-9]+' || echo 0)
passed=$((passed + p)); failed=$((failed + f))

echo "== PostgreSQL tests (bun test on *.pg.test.ts; throwaway PostgreSQL 15 clusters, installed when missing)"
# bunfig.toml keeps these files out of the run above; the flags below replace its ignore list.
# A PostgreSQL that cannot be installed or started fails here: these tests never skip.
if bash scripts/ensure-postgres.sh; then
  bun test --path-ignore-patterns='web/e2e/**' --path-ignore-patterns='dist/**' --path-ignore-patterns='test-results/**' .pg.test 2>&1 | tee .tmp/pg.log
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  p=$(grep -Eo '^ *[0-9]+ pass' .tmp/pg.log | tail -1 | grep -Eo '[0-9]+' || echo 0)
  f=$(grep -Eo '^ *[0-9]+ fail' .tmp/pg.log | tail -1 | grep -Eo '[0-9]+' || echo 0)
  # A run that passed nothing (no file found, or it died before its summary) is a failure.
  if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then f=1; status=1; fi
else
  echo "PostgreSQL could not be installed (scripts/ensure-postgres.sh)"
  p=0; f=1; status=1
fi
passed=$((passed + p)); failed=$((failed + f))

echo "== Server tests on PostgreSQL (the whole bun test with TEST_BACKEND=postgres: a throwaway cluster per test process)"
# The same files as the first run, each setup() on a fresh PostgreSQL database; tests about
# SQLite's internals skip there, saying why. No PostgreSQL, or a run that passes nothing, fails.
if bash scripts/ensure-postgres.sh; then
  TEST_BACKEND=postgres bun test 2>&1 | tee .tmp/unit-pg.log
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  p=$(grep -Eo '^ *[0-9]+ pass' .tmp/unit-pg.log | tail -1 | grep -Eo '[0-9]+' || echo 0)
  f=$(grep -Eo '^ *[0-9]+ fail' .tmp/unit-pg.log | tail -1 | grep -Eo '[0-9]+' || echo 0)
  if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then f=1; status=1; fi
else
  echo "PostgreSQL could not be installed (scripts/ensure-postgres.sh)"
  p=0; f=1; status=1
fi
passed=$((passed + p)); failed=$((failed + f))

echo "== Build the binary"
if ! bun run scripts/build.ts; then
  echo "0 passed, $((failed + 1)) failed"
  exit 1
fi

echo "== Binary smoke test"
bun run scripts/smoke.ts 2>&1 | tee .tmp/smoke.log
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
p=$(grep -Eo '^smoke: [0-9]+ passed' .tmp/smoke.log | grep -Eo '[0-9]+' || echo 0)
f=$(grep -Eo '[0-9]+ failed$' .tmp/smoke.log | tail -1 | grep -Eo '[0-9]+' || echo 1)
passed=$((passed + p)); failed=$((failed + f))

echo "== Binary smoke test on PostgreSQL (DATABASE_URL on a throwaway cluster)"
# smoke.ts starts and removes the cluster itself; one that cannot start is its one failure.
if bash scripts/ensure-postgres.sh; then
  SMOKE_BACKEND=postgres bun run scripts/smoke.ts 2>&1 | tee .tmp/smoke-pg.log
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  p=$(grep -Eo '^smoke: [0-9]+ passed' .tmp/smoke-pg.log | grep -Eo '[0-9]+' || echo 0)
  f=$(grep -Eo '[0-9]+ failed$' .tmp/smoke-pg.log | tail -1 | grep -Eo '[0-9]+' || echo 1)
  if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then f=1; status=1; fi
else
  echo "PostgreSQL could not be installed (scripts/ensure-postgres.sh)"
  p=0; f=1; status=1
fi
passed=$((passed + p)); failed=$((failed + f))

echo "== Hostile-input suite (compiled binary; one test per request, plus whole-run checks)"
bun run scripts/hostile.ts 2>&1 | tee .tmp/hostile.log
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
p=$(grep -Eo '^hostile: [0-9]+ passed' .tmp/hostile.log | tail -1 | grep -Eo '[0-9]+' || echo 0)
f=$(grep -Eo '^hostile: [0-9]+ passed, [0-9]+ failed$' .tmp/hostile.log | tail -1 | grep -Eo '[0-9]+ failed' | grep -Eo '[0-9]+' || echo 1)
passed=$((passed + p)); failed=$((failed + f))

echo "== Hostile-input suite on PostgreSQL (the binary with DATABASE_URL on a throwaway cluster)"
if bash scripts/ensure-postgres.sh; then
  HOSTILE_BACKEND=postgres bun run scripts/hostile.ts 2>&1 | tee .tmp/hostile-pg.log
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  p=$(grep -Eo '^hostile: [0-9]+ passed' .tmp/hostile-pg.log | tail -1 | grep -Eo '[0-9]+' || echo 0)
  f=$(grep -Eo '^hostile: [0-9]+ passed, [0-9]+ failed$' .tmp/hostile-pg.log | tail -1 | grep -Eo '[0-9]+ failed' | grep -Eo '[0-9]+' || echo 1)
  if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then f=1; status=1; fi
else
  echo "PostgreSQL could not be installed (scripts/ensure-postgres.sh)"
  p=0; f=1; status=1
fi
passed=$((passed + p)); failed=$((failed + f))

echo "== Browser tests (Playwright, Chromium, compiled binary)"
rm -f .tmp/e2e-results.json
E2E_DATA_DIR="" npx --no-install playwright test
e2e=$?
[ $e2e -eq 0 ] || status=1
if [ -f .tmp/e2e-results.json ]; then
  read -r p f < <(node -e 'const s=require("./.tmp/e2e-results.json").stats; console.log(s.expected + s.flaky, s.unexpected)')
else
  p=0; f=0
fi
# A run that failed without a failing test (the web server could not start, a global error)
# still counts as one failure, so the closing line never reads "0 failed" for a failed run.
[ $e2e -ne 0 ] && [ "$f" -eq 0 ] && f=1
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
if [ -f .tmp/e2e-pg-results.json ]; then
  read -r p f < <(node -e 'const s=require("./.tmp/e2e-pg-results.json").stats; console.log(s.expected + s.flaky, s.unexpected)')
else
  p=0; f=0
fi
[ $e2e -ne 0 ] && [ "$f" -eq 0 ] && f=1
# Nothing selected (the tags gone) passes nothing: a failure, not a quiet "0 passed".
[ "$p" -eq 0 ] && [ "$f" -eq 0 ] && { f=1; status=1; }
passed=$((passed + p)); failed=$((failed + f))

[ "$failed" -eq 0 ] || status=1
echo "$passed passed, $failed failed"
exit $status
