#!/usr/bin/env bash
# Installs Debian's haproxy and nginx when missing: the load balancers the fail-over tests
# (src/links/failover.pg.test.ts, src/links/nginx.pg.test.ts) and the scale benchmark
# (scripts/bench/scale.ts) run in front of two Threadlink instances, from the shipped
# deploy/haproxy.cfg and deploy/nginx.conf. Only the binaries are used; the tests write their
# own copies of those files and run them in the foreground on loopback (Debian's services, if
# the packages start them, are stopped again: nothing here needs a system-wide listener).
# Needs root or passwordless sudo.
set -euo pipefail
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo -n"
missing=()
command -v haproxy >/dev/null 2>&1 || missing+=(haproxy)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx)
if [ ${#missing[@]} -gt 0 ]; then
  echo "not found: ${missing[*]}; installing Debian's packages"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1 || {
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
  }
  # Without systemd nothing was started; with it, the packaged services are not ours to run.
  for s in "${missing[@]}"; do $SUDO service "$s" stop >/dev/null 2>&1 || true; done
fi
command -v haproxy >/dev/null 2>&1 || { echo "haproxy is still missing" >&2; exit 1; }
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || { echo "nginx is still missing" >&2; exit 1; }
