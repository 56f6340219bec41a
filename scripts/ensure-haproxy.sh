#!/usr/bin/env bash
# Installs Debian's haproxy for the scale benchmark (scripts/bench/scale.ts) when it is missing:
# the load balancer in front of two Threadlink instances. Only the binary is used; the bench
# writes its own configuration and runs it in the foreground on loopback (Debian's service,
# if the package starts it, is stopped again: the bench needs no system-wide listener).
# Needs root or passwordless sudo.
set -euo pipefail
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo -n"
if ! command -v haproxy >/dev/null 2>&1; then
  echo "haproxy not found: installing Debian's haproxy package"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq haproxy >/dev/null 2>&1 || {
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq haproxy >/dev/null
  }
  # Without systemd nothing was started; with it, the packaged service is not ours to run.
  $SUDO service haproxy stop >/dev/null 2>&1 || true
fi
command -v haproxy >/dev/null 2>&1 || { echo "haproxy is still missing" >&2; exit 1; }
