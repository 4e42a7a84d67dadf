#!/usr/bin/env bash
# The tests that start no server (`pytest -m no_servers`, see tests/conftest.py) on each further supported
# Python, each in its own environment made from uv.lock: .venv-3.12, .venv-3.13 (git-ignored).
# MESH_TEST_PYTHONS names the versions (default "3.12 3.13"; empty: none). MESH_TEST_SHARE=K/N runs, of
# those, every test that starts no process at all and the K-th of N shares of the modules that start
# processes (scripts/test.sh gives each further Python one share: together they run each such module once).
# Arguments go to pytest.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
uv_bin="$root/.tools/bootstrap/bin/uv"
[ -x "$uv_bin" ] || "$root/scripts/bootstrap.sh"  # installs uv (and .venv)
versions="${MESH_TEST_PYTHONS-3.12 3.13}"
share="${MESH_TEST_SHARE:-1/1}"
if ! [[ "$share" =~ ^([0-9]+)/([0-9]+)$ ]] || [ "${BASH_REMATCH[1]}" -lt 1 ] \
  || [ "${BASH_REMATCH[1]}" -gt "${BASH_REMATCH[2]}" ]; then
  echo "test-pythons: MESH_TEST_SHARE is K/N with 1 <= K <= N (e.g. 1/2), not '$share'" >&2
  exit 2
fi

# The interpreter of Python $1 (X.Y): on PATH, else pyenv's.
find_python() {
  local version="$1" found prefix
  found="$(command -v "python$version" || true)"
  if [ -n "$found" ] && "$found" -c "" 2>/dev/null; then
    echo "$found"
    return 0
  fi
  if command -v pyenv >/dev/null && prefix="$(pyenv prefix "$version" 2>/dev/null)" \
    && [ -x "$prefix/bin/python$version" ]; then
    echo "$prefix/bin/python$version"
    return 0
  fi
  return 1
}

# The marked modules by name (tests/conftest.py classifies a module by its source): pytest then collects
# only those, not every module to deselect most of the rest. Explicit test paths win.
explicit=0
case " $* " in *" tests"*) explicit=1 ;; esac
modules=()
# Bytecode for this Python (PYTHONDONTWRITEBYTECODE may be set): our modules, compiled once here instead
# of in every process the tests start, and pytest's rewritten test modules, kept for the next worker.
unset PYTHONDONTWRITEBYTECODE

failed=""
for version in $versions; do
  if ! python="$(find_python "$version")"; then
    echo "test-pythons: Python $version not found; install it (e.g. pyenv install $version)" \
      "or set MESH_TEST_PYTHONS to the versions to test" >&2
    exit 1
  fi
  echo "== pytest -m no_servers on Python $version ($python), share $share of the process-starting modules"
  start=$SECONDS
  UV_PYTHON_DOWNLOADS=never UV_PROJECT_ENVIRONMENT="$root/.venv-$version" \
    "$uv_bin" sync --frozen --quiet --python "$python"  # bytecode compiled on import: only what runs
  "$root/.venv-$version/bin/python" -m compileall -q mesh_framework starter_app tests >/dev/null
  if [ "$explicit" = 0 ] && [ ${#modules[@]} = 0 ]; then
    mapfile -t modules < <("$root/.venv-$version/bin/python" - "$share" <<'PYTHON'
import sys
from pathlib import Path
from tests.conftest import starts_processes, starts_servers
k, n = map(int, sys.argv[1].split("/"))
candidates = [p for p in sorted(Path("tests").rglob("test_*.py")) if not starts_servers(p)]
processes = [p for p in candidates if starts_processes(p)]
print(*(p for p in candidates if p not in processes or processes.index(p) % n == k - 1), sep="\n")
PYTHON
    )
  fi
  "$root/.venv-$version/bin/python" -m pytest -m no_servers "$@" ${modules[@]+"${modules[@]}"} \
    || failed="$failed $version"
  echo "== pytest -m no_servers (Python $version): $((SECONDS - start)) s"
done
if [ -n "$failed" ]; then
  echo "test-pythons: failed on Python$failed" >&2
  exit 1
fi
