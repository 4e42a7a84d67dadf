#!/usr/bin/env bash
# Mesh benchmarks: our agents and registry beside the real MCP Mesh in one run (benchmarks/mesh_bench.py,
# results in benchmarks/results/mesh.json), then the pages (benchmarks/report.py). ~9 min on 2 cores;
# QUICK=1 for a short configuration (~4 min; the page says so).
#
#   benchmarks/run_mesh.sh                          # scripts/bootstrap.sh --dev first, for .venv
#   PY_SPY=/path/to/py-spy benchmarks/run_mesh.sh   # also profile our calc path (benchmarks/mesh_profile.py)
#
# Every process is started on 127.0.0.1 and stopped by its PID; every load is bounded in time and count.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x .venv/bin/python ]; then
    echo "run_mesh: .venv missing; run scripts/bootstrap.sh --dev first" >&2
    exit 2
fi
# Both installers are idempotent and fast once their tools are there.
[ -f .tools/autocannon/node_modules/autocannon/autocannon.js ] || scripts/install-node-tools.sh
.venv/bin/python -c 'import sys; from tests.interop.mcp_mesh import missing_tools; sys.exit(1 if missing_tools() else 0)' \
    || scripts/install-mcp-mesh.sh

args=()
if [ "${QUICK:-0}" = "1" ]; then
    args+=(--quick)
fi
.venv/bin/python benchmarks/mesh_bench.py "${args[@]}" "$@"
if [ -n "${PY_SPY:-}" ]; then
    .venv/bin/python benchmarks/mesh_profile.py --py-spy "$PY_SPY"
fi
.venv/bin/python benchmarks/report.py
