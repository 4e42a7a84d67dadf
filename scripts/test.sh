#!/usr/bin/env bash
# The whole test suite: lint, type check, then every test (unit, integration, conformance, real clients)
# on .venv's Python, then the tests that start no server on the further supported Pythons
# (scripts/test-pythons.sh). Arguments go to the first pytest run only, and skip the others.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
"$root/scripts/bootstrap.sh" --dev  # the development group too: pytest, mypy, ruff, mkdocs, ...
"$root/scripts/install-node-tools.sh"
"$root/scripts/install-mcp-mesh.sh"
"$root/scripts/install-system-packages.sh"  # Chromium (mesh page test), zsh (completion test)
echo "== ruff"
.venv/bin/ruff check mesh_framework starter_app tests benchmarks
.venv/bin/ruff format --check --quiet mesh_framework starter_app tests benchmarks
echo "== mypy"
.venv/bin/mypy
echo "== docs"
NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict --quiet
echo "== pytest (Python $(.venv/bin/python -c 'import platform; print(platform.python_version())'))"
status=0
.venv/bin/pytest "$@" || status=$?
if [ $# -eq 0 ]; then  # the whole run: the other supported Pythons too
  "$root/scripts/test-pythons.sh" || status=1
fi
exit "$status"
