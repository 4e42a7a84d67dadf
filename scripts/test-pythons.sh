#!/usr/bin/env bash
# The tests that start no server (`pytest -m no_servers`, see tests/conftest.py) on each further supported
# Python, each in its own environment made from uv.lock: .venv-3.12, .venv-3.13 (git-ignored).
# MESH_TEST_PYTHONS names the versions (default "3.12 3.13"; empty: none). MESH_TEST_MARK=quick runs only
# the tests that start no process at all (scripts/test.sh does, on the versions between the lowest and the
# newest). Arguments go to pytest.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
uv_bin="$root/.tools/bootstrap/bin/uv"
[ -x "$uv_bin" ] || "$root/scripts/bootstrap.sh"  # installs uv (and .venv)
versions="${MESH_TEST_PYTHONS-3.12 3.13}"
mark="${MESH_TEST_MARK:-no_servers}"
case "$mark" in
  no_servers | quick) ;;
  *) echo "test-pythons: MESH_TEST_MARK is no_servers or quick, not '$mark'" >&2; exit 2 ;;
esac

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
  echo "== pytest -m $mark on Python $version ($python)"
  start=$SECONDS
  UV_PYTHON_DOWNLOADS=never UV_PROJECT_ENVIRONMENT="$root/.venv-$version" \
    "$uv_bin" sync --frozen --quiet --python "$python"  # bytecode compiled on import: only what runs
  "$root/.venv-$version/bin/python" -m compileall -q mesh_framework starter_app tests >/dev/null
  if [ "$explicit" = 0 ] && [ ${#modules[@]} = 0 ]; then
    mapfile -t modules < <("$root/.venv-$version/bin/python" -c 'from pathlib import Path
from tests.conftest import starts_processes, starts_servers
starts = starts_processes if "'"$mark"'" == "quick" else starts_servers
print(*(p for p in sorted(Path("tests").rglob("test_*.py")) if not starts(p)), sep="\n")')
  fi
  "$root/.venv-$version/bin/python" -m pytest -m "$mark" "$@" ${modules[@]+"${modules[@]}"} \
    || failed="$failed $version"
  echo "== pytest -m $mark (Python $version): $((SECONDS - start)) s"
done
if [ -n "$failed" ]; then
  echo "test-pythons: failed on Python$failed" >&2
  exit 1
fi
