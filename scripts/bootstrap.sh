#!/usr/bin/env bash
# Creates .venv (or $UV_PROJECT_ENVIRONMENT) from uv.lock (exact pinned versions). Safe to run again: it
# only syncs what changed.
#   scripts/bootstrap.sh        the runtime: the framework's dependencies and the extras the starter app
#                               needs (openai, for its LLM tool), nothing for development; what run.sh uses.
#                               It only adds: a .venv that has the development group keeps it.
#   scripts/bootstrap.sh --dev  everything: every extra and the development group (pytest, mypy, ruff,
#                               mkdocs, Playwright, ...); what test.sh uses.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
case "${1-}" in
  "") sync=(--no-dev --extra openai --inexact) ;;
  --dev) sync=() ;;
  *) echo "bootstrap: unknown option '$1' (use --dev for the development environment)" >&2; exit 2 ;;
esac
uv_bin="$root/.tools/bootstrap/bin/uv"
if [ ! -x "$uv_bin" ]; then
  echo "bootstrap: installing uv into .tools/bootstrap" >&2
  python3 -m venv "$root/.tools/bootstrap"
  "$root/.tools/bootstrap/bin/pip" install --quiet "uv==0.13.8"
fi
UV_PYTHON_DOWNLOADS=never "$uv_bin" sync --frozen --quiet --python python3 --compile-bytecode ${sync[@]+"${sync[@]}"}
# Our own modules too: PYTHONDONTWRITEBYTECODE may be set, and compiling on every start costs a second.
"${UV_PROJECT_ENVIRONMENT:-$root/.venv}/bin/python" -m compileall -q mesh_framework starter_app >/dev/null
