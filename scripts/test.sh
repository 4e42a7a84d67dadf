#!/usr/bin/env bash
# The whole test suite: lint, then every test (unit, integration, conformance, real clients) on .venv's
# Python, spread over the machine's cores (pytest-xdist, a test module to a worker), with the type check,
# the docs build and the tests that start no server on the further supported Pythons
# (scripts/test-pythons.sh) running beside it at a lower priority. Each phase ends with a line
# `== PHASE: SECONDS s`.
#
#   scripts/test.sh            everything (what CI runs): lint, then the main pytest run with the type
#                              check, the docs build and the further Pythons beside it
#   scripts/test.sh --quick    lint and the tests that start no process (`pytest -m quick`): well under a
#                              minute, for the edit-test loop
#   scripts/test.sh ARGS...    lint, types, docs and `pytest ARGS` alone (no other Pythons)
#
# MESH_TEST_WORKERS: pytest's worker processes (default: one a core and one more, as the main run's tests
# mostly wait on the processes they start; more finish sooner on a quiet machine, but the tests that time
# processes they start then see a crowded one); 0 runs the tests in pytest's own process.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

# Bytecode is kept even when PYTHONDONTWRITEBYTECODE is set: pytest's rewritten test modules and the
# modules every agent a test starts imports are then compiled once, not in each worker and process.
unset PYTHONDONTWRITEBYTECODE

quick=0
if [ "${1-}" = "--quick" ]; then
  quick=1
  shift
fi
cores="$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)"
workers="${MESH_TEST_WORKERS:-$((cores + 1))}"
# --dist loadfile: a module's tests run in one worker, so module-scoped fixtures (started meshes) start once
parallel=(-n "$workers" --dist loadfile)
[ "$workers" = 0 ] && parallel=(-p no:xdist)

# phase NAME COMMAND...: run it, then print `== NAME: SECONDS s`; returns the command's status.
phase() {
  local name="$1" start=$SECONDS code=0
  shift
  "$@" || code=$?
  echo "== $name: $((SECONDS - start)) s$([ "$code" = 0 ] || echo " (failed, exit $code)")"
  return "$code"
}

lint() {
  .venv/bin/ruff check mesh_framework starter_app tests benchmarks &&
    .venv/bin/ruff format --check --quiet mesh_framework starter_app tests benchmarks
}

system_packages() {  # Chromium (mesh page test), zsh (completion test)
  "$root/scripts/install-system-packages.sh"
}

tools() {  # the two installers side by side: each mostly waits on its downloads and unpacking
  local node=0 mesh=0
  "$root/scripts/install-node-tools.sh" &
  local node_pid=$!
  "$root/scripts/install-mcp-mesh.sh" || mesh=$?
  wait "$node_pid" || node=$?
  [ "$node" = 0 ] && [ "$mesh" = 0 ]
}

"$root/scripts/bootstrap.sh" --dev  # the development group too: pytest, mypy, ruff, mkdocs, ...
if [ "$quick" = 1 ]; then  # the tests run even when lint fails: both verdicts at once
  status=0
  phase ruff lint || status=1
  # The quick modules by name (tests/conftest.py classifies a module by its source), so that the workers
  # collect only those; one worker a core, as these tests wait on nothing. Explicit test paths win.
  modules=()
  case " $* " in
    *" tests"*) ;;
    *) mapfile -t modules < <(.venv/bin/python -c 'from pathlib import Path
from tests.conftest import starts_processes
print(*(p for p in sorted(Path("tests").rglob("test_*.py")) if not starts_processes(p)), sep="\n")') ;;
  esac
  [ "$workers" = 0 ] || parallel=(-n "${MESH_TEST_WORKERS:-$cores}" --dist loadfile)
  phase "pytest -m quick" .venv/bin/pytest -m quick -q "${parallel[@]}" "$@" ${modules[@]+"${modules[@]}"} \
    || status=1
  exit "$status"
fi

status=0  # every phase runs; the command fails when one did
phase "setup: system packages" system_packages || status=1

# Beside the main pytest run (from before its tools are installed), at a lower priority: the type check,
# the docs build and (for the whole run) the further Pythons. They keep the CPU busy; the main run mostly
# waits on the processes its tests start, so these take the cores it leaves idle and yield them whenever
# it wants them (nice). Each one's output goes to build/test-logs/ and is shown, with its `== PHASE` line,
# once the main run has ended.
logs="$root/build/test-logs"
rm -rf "$logs" && mkdir -p "$logs"
beside_names=()
beside_pids=()
beside() {  # beside NAME COMMAND...: run it niced in the background, its output to a log of its own
  local name="$1"
  shift
  ( phase "$name" nice -n 15 "$@" ) >"$logs/${#beside_names[@]}.log" 2>&1 &
  beside_names+=("$name")
  beside_pids+=("$!")
}
beside mypy .venv/bin/mypy
beside docs env NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict --quiet
if [ $# -eq 0 ]; then  # the whole run: the other supported Pythons too, one worker each
  # Each one runs every test that starts no process at all, and a share of the modules that start
  # processes but no server: together they run each of those once (the main run has them all).
  others=(${MESH_TEST_PYTHONS-3.12 3.13})
  for index in ${others[@]+"${!others[@]}"}; do
    beside "Python ${others[$index]}" env MESH_TEST_PYTHONS="${others[$index]}" \
      MESH_TEST_SHARE="$((index + 1))/${#others[@]}" \
      "$root/scripts/test-pythons.sh" -p no:xdist
  done
fi

phase "setup: tools" tools || status=1  # while the jobs beside start: Node, the suites, MCP Mesh
phase ruff lint || status=1

version="$(.venv/bin/python -c 'import platform; print(platform.python_version())')"
echo "== pytest (Python $version, $workers workers)"
phase "pytest (Python $version)" .venv/bin/pytest "${parallel[@]}" "$@" || status=1
for index in "${!beside_pids[@]}"; do
  wait "${beside_pids[$index]}" || status=1
  echo "== beside the main run: ${beside_names[$index]}"
  cat "$logs/$index.log"
done
echo "== total: $SECONDS s"
exit "$status"
