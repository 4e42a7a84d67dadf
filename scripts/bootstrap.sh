#!/usr/bin/env bash
# Creates .venv from uv.lock (exact pinned versions). Safe to run again: it only syncs what changed.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
uv_bin="$root/.tools/bootstrap/bin/uv"
if [ ! -x "$uv_bin" ]; then
  echo "bootstrap: installing uv into .tools/bootstrap" >&2
  python3 -m venv "$root/.tools/bootstrap"
  "$root/.tools/bootstrap/bin/pip" install --quiet "uv==0.13.8"
fi
UV_PYTHON_DOWNLOADS=never "$uv_bin" sync --frozen --quiet --python python3 --compile-bytecode
# Our own modules too: PYTHONDONTWRITEBYTECODE may be set, and compiling on every start costs a second.
"$root/.venv/bin/python" -m compileall -q mesh_framework starter_app >/dev/null
