#!/usr/bin/env bash
# Installs Debian's Chromium for the browser tests when it is missing (Playwright's own
# browser download cannot work on these machines). Needs root or passwordless sudo.
set -euo pipefail
path="${CHROMIUM_PATH:-/usr/bin/chromium}"
[ -x "$path" ] && exit 0
echo "Chromium not found at $path: installing Debian's chromium package"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo -n"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
[ -x "$path" ]
