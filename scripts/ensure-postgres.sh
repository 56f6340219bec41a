#!/usr/bin/env bash
# Installs Debian's PostgreSQL server for the PostgreSQL tests when it is missing, and the
# unprivileged user the tests' throwaway clusters run as (initdb and postgres refuse root).
# Needs root or passwordless sudo. The clusters themselves are made and removed by
# scripts/lib/pgcluster.ts.
set -euo pipefail
bindir="${PG_BINDIR:-/usr/lib/postgresql/15/bin}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo -n"
have_server() { [ -x "$bindir/initdb" ] && [ -x "$bindir/pg_ctl" ] && [ -x "$bindir/postgres" ]; }
if ! have_server; then
  echo "PostgreSQL not found in $bindir: installing Debian's postgresql package"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq postgresql >/dev/null
fi
# Explicit: under set -e, a failing test inside an && list would not stop the script.
have_server || { echo "PostgreSQL's server binaries are still missing from $bindir" >&2; exit 1; }
# Only root needs another user to run the clusters as; anyone else runs them as themselves.
if [ "$(id -u)" -eq 0 ] && ! id -u threadlink-test >/dev/null 2>&1; then
  useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin threadlink-test
fi
