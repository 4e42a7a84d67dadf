#!/usr/bin/env bash
# Install the browser the mesh page's test drives: Debian's Chromium (/usr/bin/chromium), through apt.
#
# Playwright (a Python test dependency) drives it with executable_path, so no browser download
# from Playwright's own servers is needed. Idempotent: nothing is done when chromium is present.
# Installing needs root (apt-get); without root it says what to run and exits 0, and the browser
# test then fails with the same hint.
#
# Usage: scripts/install-browser.sh
#   CHROMIUM=/path/to/chromium  use another Chromium (the test reads the same variable).
set -euo pipefail

browser="${CHROMIUM:-/usr/bin/chromium}"
if [ -x "${browser}" ]; then
    echo "chromium $("${browser}" --version 2>/dev/null | awk '{print $2}') (cached) ${browser}"
    exit 0
fi
if [ -n "${CHROMIUM:-}" ]; then
    echo "install-browser: ERROR: CHROMIUM=${CHROMIUM} is not an executable" >&2
    exit 1
fi
if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null; then
    echo "install-browser: chromium is missing; install it with: sudo apt-get install -y chromium" >&2
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y --no-install-recommends chromium >/dev/null; then
    apt-get update >/dev/null
    apt-get install -y --no-install-recommends chromium >/dev/null
fi
echo "chromium $(/usr/bin/chromium --version 2>/dev/null | awk '{print $2}') (installed) /usr/bin/chromium"
