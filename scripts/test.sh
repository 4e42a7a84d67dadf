#!/usr/bin/env bash
# The whole test suite: lint, type check, then every test (unit, integration, conformance, real clients).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
"$root/scripts/bootstrap.sh"
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
echo "== pytest"
exec .venv/bin/pytest "$@"
