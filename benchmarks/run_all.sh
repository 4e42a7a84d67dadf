#!/usr/bin/env bash
# Run every benchmark and rewrite docs/benchmarks.md (and docs/benchmarks-mesh.md) from the results.
#
#   benchmarks/run_all.sh            full run (~5 min on 2 cores)
#   QUICK=1 benchmarks/run_all.sh    smoke run with short loads and few runs (figures not meaningful)
#
# Needs the venv (scripts/bootstrap.sh), system `node` and autocannon (scripts/install-node-tools.sh; the
# scripts run it themselves when autocannon is missing). Every server is a subprocess on 127.0.0.1 and an
# ephemeral port, stopped by PID when its script ends.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
py="$root/.venv/bin/python"
[ -x "$py" ] || { echo "run_all: no .venv; run scripts/bootstrap.sh first" >&2; exit 1; }
command -v node >/dev/null || { echo "run_all: system 'node' is required" >&2; exit 1; }
[ -f .tools/autocannon/node_modules/autocannon/autocannon.js ] || scripts/install-node-tools.sh

if [ "${QUICK:-0}" = "1" ]; then
    cpu_args=(-c 16 -d 1 --warmup 0.5 --repeats 1)
    startup_args=(--runs 2 --calls 200)
    inproc_args=(-n 1000)
else
    cpu_args=(-c 16 -d 5 --warmup 2 --repeats 3)
    startup_args=(--runs 10 --calls 1000)
    inproc_args=(-n 5000)
fi

"$py" benchmarks/server_cpu.py "${cpu_args[@]}"
"$py" benchmarks/startup.py "${startup_args[@]}"
"$py" benchmarks/profile_inproc.py calls "${inproc_args[@]}"
# The mesh figures beside MCP Mesh (~9 min; SKIP_MESH=1 keeps the last docs/benchmarks-mesh.md).
if [ "${SKIP_MESH:-0}" != "1" ]; then
    benchmarks/run_mesh.sh
fi
"$py" benchmarks/report.py
"$py" benchmarks/callbacks_bench.py $([ "${QUICK:-0}" = "1" ] && echo --quick)  # after report.py: appends its section
"$py" benchmarks/llm_bench.py $([ "${QUICK:-0}" = "1" ] && echo --quick)  # after report.py: appends its section (needs scripts/install-mcp-mesh.sh)
"$py" benchmarks/fleet/fleet_bench.py $([ "${QUICK:-0}" = "1" ] && echo --quick)  # after report.py: appends its section (~4 min; needs scripts/install-mcp-mesh.sh)
