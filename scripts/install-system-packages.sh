#!/usr/bin/env bash
# Install the Debian packages some tests drive: Chromium (/usr/bin/chromium, for the mesh page's test,
# through Playwright's executable_path: no browser download) and zsh (the completion script's test).
#
# Idempotent: nothing is done when both are present. Installing needs root (apt-get); without root it
# says what to run and exits 0, and the tests that need a missing package fail with the same hint.
#
# Usage: scripts/install-system-packages.sh
#   CHROMIUM=/path/to/chromium  use another Chromium (the test reads the same variable).
set -euo pipefail

browser="${CHROMIUM:-/usr/bin/chromium}"
if [ -n "${CHROMIUM:-}" ] && [ ! -x "${browser}" ]; then
    echo "install-system-packages: ERROR: CHROMIUM=${CHROMIUM} is not an executable" >&2
    exit 1
fi
missing=()
[ -x "${browser}" ] || missing+=(chromium)
command -v zsh >/dev/null || missing+=(zsh)
if [ "${#missing[@]}" -gt 0 ]; then
    if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null; then
        echo "install-system-packages: missing ${missing[*]}; install with: sudo apt-get install -y ${missing[*]}" >&2
        exit 0
    fi
    export DEBIAN_FRONTEND=noninteractive
    if ! apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null; then
        apt-get update >/dev/null
        apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null
    fi
fi
echo "chromium $("${browser}" --version 2>/dev/null | awk '{print $2}') ${browser}; $(zsh --version 2>/dev/null)"
