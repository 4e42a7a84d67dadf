#!/usr/bin/env bash
# Run every benchmark, each writing its results file in benchmarks/results/, then write docs/benchmarks.md
# and docs/benchmarks-mesh.md from the results (benchmarks/report.py).
#
#   benchmarks/run_all.sh                      everything, the scripts' default configurations (~1 h on 2 cores)
#   QUICK=1 benchmarks/run_all.sh              short configurations (the pages say so), ~15 min
#   ONLY="server_cpu startup" benchmarks/run_all.sh   some of them (names below), then the pages
#   .venv/bin/python benchmarks/report.py      the pages from the results as they are, no benchmark
#
# Names: server_cpu startup cli inproc mesh topology llm stream callbacks service a2a fleet jobs tracing metrics fuzz faults soak
# Needs the venv (scripts/bootstrap.sh --dev), system `node` and autocannon (scripts/install-node-tools.sh), and for
# the sides beside MCP Mesh scripts/install-mcp-mesh.sh. Every server is a subprocess on 127.0.0.1 and an
# ephemeral port, stopped by PID when its script ends.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
py="$root/.venv/bin/python"
[ -x "$py" ] || { echo "run_all: no .venv; run scripts/bootstrap.sh --dev first" >&2; exit 1; }
command -v node >/dev/null || { echo "run_all: system 'node' is required" >&2; exit 1; }
[ -f .tools/autocannon/node_modules/autocannon/autocannon.js ] || scripts/install-node-tools.sh
quick="${QUICK:-0}"
all="server_cpu startup cli inproc mesh topology llm stream callbacks service a2a fleet jobs tracing metrics fuzz faults soak"
only=" ${ONLY:-$all} "

pick() {  # pick QUICK-VALUE FULL-VALUE
    if [ "$quick" = "1" ]; then echo "$1"; else echo "$2"; fi
}

run() {  # run NAME COMMAND...: the benchmark NAME unless ONLY leaves it out
    local name="$1"
    shift
    case "$only" in
        *" $name "*) echo "== $name: $*" >&2; "$@" ;;
        *) ;;
    esac
}

# shellcheck disable=SC2046  # word splitting of pick's output is intended
{
    run server_cpu "$py" benchmarks/server_cpu.py $(pick "-d 2 --warmup 1 --repeats 2" "-d 5 --warmup 2 --repeats 3")
    run startup "$py" benchmarks/startup.py $(pick "--runs 3 --calls 200" "--runs 10 --calls 1000")
    run cli "$py" benchmarks/cli_bench.py $(pick "--runs 5" "--runs 20")
    run inproc "$py" benchmarks/profile_inproc.py calls $(pick "-n 1000" "-n 5000")
    run mesh env QUICK="$quick" benchmarks/run_mesh.sh
    run topology "$py" benchmarks/topology_bench.py $(pick "--runs 2" "--runs 5")
    run llm "$py" benchmarks/llm_bench.py $(pick "--quick" "")
    run llm "$py" benchmarks/llm_bench.py --breakdown $(pick "--quick" "")
    run stream "$py" benchmarks/stream_bench.py $(pick "--quick" "")
    run callbacks "$py" benchmarks/callbacks_bench.py $(pick "--quick" "")
    run service "$py" benchmarks/service_bench.py $(pick "--quick" "")
    run a2a "$py" benchmarks/a2a_bench.py $(pick "--quick" "")
    run fleet "$py" benchmarks/fleet/fleet_bench.py $(pick "--quick" "")
    run jobs "$py" benchmarks/jobs_bench.py $(pick "-n 300 -r 3 -m 500" "-n 1000 -r 5 -m 2000")
    run tracing "$py" benchmarks/tracing_bench.py $(pick "-n 1000 --rounds 3" "-n 4000 --rounds 7")
    run console "$py" benchmarks/console_bench.py $(pick "-n 1000 --rounds 3" "-n 4000 --rounds 7")
    run metrics "$py" benchmarks/metrics_bench.py $(pick "-n 1000 --rounds 3" "-n 4000 --rounds 7")
    run fuzz "$py" benchmarks/fuzz_long.py $(pick "100" "500")
    run faults "$py" benchmarks/faults_bench.py
    run soak "$py" benchmarks/soak.py $(pick "--minutes 3 --window 30" "--minutes 30 --window 60")
}
"$py" benchmarks/report.py
