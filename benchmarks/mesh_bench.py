#!/usr/bin/env python3
"""Mesh benchmarks: our agents on our embedded registry beside the real MCP Mesh, in one run.

Phases (each starts its own processes on 127.0.0.1 and stops them by PID, also on failure):

  calc      client -> consumer -> provider: sequential latency over one keep-alive connection, then
            throughput under autocannon (benchmarks/mesh_load.js); RSS of every process before and after.
            Sides: ours, MCP Mesh as shipped, MCP Mesh with TCP_NODELAY on its agents' listening sockets
            (benchmarks/mesh_agents/nodelay/sitecustomize.py on PYTHONPATH; mcp-mesh itself unchanged).
  topology  consumer first (dependency missing: its first answer), then provider start -> consumer's first
            successful call (polled every 20 ms), median of N; then two providers, SIGKILL the one in use
            (calls across the kill), then SIGKILL the other (no alternate left).
  registry  the registry alone under a simulated fleet of heartbeats (distinct agent ids, half providers,
            half consumers, payloads like MCP Mesh 3.7's): full POSTs/s, then HEADs/s, CPU per request.

Ours: `python -m mesh_framework.cli registry` (the embedded registry, standalone) and
`python -m mesh_framework.cli run bench_adder|bench_calc` (benchmarks/mesh_agents/). MCP Mesh: the registry
binary and the fixture agents tests/interop/mesh_agents/adder.py, calc_consumer.py (installed by
scripts/install-mcp-mesh.sh). Both as shipped: registry timeouts and heartbeat intervals at their defaults
unless a row says otherwise.

Results: benchmarks/results/mesh.json; `benchmarks/report.py` writes docs/benchmarks-mesh.md from it.
This script parses the options, runs the phases and writes the results; the parts
are in benchmarks/meshbench/ (processes, client, agents, measure, load, one module per phase).

    .venv/bin/python benchmarks/mesh_bench.py                  # everything, ~8.5 min on 2 cores
    .venv/bin/python benchmarks/mesh_bench.py --quick          # smoke run
    .venv/bin/python benchmarks/mesh_bench.py --phases calc    # one phase
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import tempfile
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))
sys.path.insert(1, str(BENCH_DIR.parent))

from _common import AUTOCANNON, HOST, Run, save_results  # noqa: E402
from meshbench.agents import SIDES, spawn_our_agent, start_our_registry, wait_our_agent  # noqa: E402
from meshbench.calc import phase_calc  # noqa: E402
from meshbench.client import ACCEPT, McpClient  # noqa: E402
from meshbench.load import autocannon  # noqa: E402
from meshbench.registry_load import phase_registry  # noqa: E402
from meshbench.topology import phase_topology  # noqa: E402
from processes import stop_all, wait_for  # noqa: E402

from tests.interop import mcp_mesh as mm  # noqa: E402

# mesh_profile.py starts and loads the calc stack with these, through `import mesh_bench`.
__all__ = [
    "ACCEPT",
    "HOST",
    "McpClient",
    "autocannon",
    "spawn_our_agent",
    "start_our_registry",
    "stop_all",
    "wait_for",
    "wait_our_agent",
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--phases", default="calc,topology,registry")
    parser.add_argument(
        "--sides", default=",".join(SIDES), help="sides of the calc phase (ours,mcp,mcp-nodelay)"
    )
    parser.add_argument("--quick", action="store_true", help="small counts: a smoke run")
    parser.add_argument("--calls", type=int, default=2000, help="sequential calls measured per side")
    parser.add_argument("--warmup-calls", type=int, default=200)
    parser.add_argument(
        "--latency-max-s", type=float, default=180.0, help="time bound of one side's latency run"
    )
    parser.add_argument(
        "--latency-chunks", type=int, default=4, help="latency calls alternate between sides in chunks"
    )
    parser.add_argument(
        "--rounds", type=int, default=3, help="throughput rounds per side (alternating; median)"
    )
    parser.add_argument("-c", "--connections", type=int, default=16)
    parser.add_argument("-d", "--duration", type=float, default=5.0)
    parser.add_argument("--load-warmup", type=float, default=1.0)
    parser.add_argument("--max-requests", type=int, default=200_000)
    parser.add_argument("--runs", type=int, default=5, help="provider-start runs per configuration")
    parser.add_argument(
        "--settle", type=float, default=6.0, help="s to wait after the second provider joined"
    )
    parser.add_argument("--crash-min-s", type=float, default=3.0)
    parser.add_argument("--crash-max-s", type=float, default=60.0)
    parser.add_argument("--crash-pause", type=float, default=0.01, help="pause between calls across a crash")
    parser.add_argument("--fleet", type=int, default=1000)
    parser.add_argument(
        "--small-fleet", type=int, default=10, help="also load each registry with this few agents (0: no)"
    )
    parser.add_argument("--registry-connections", type=int, default=16)
    parser.add_argument("--registry-duration", type=float, default=5.0)
    parser.add_argument("--registry-cap", type=int, default=200_000)
    args = parser.parse_args()
    if args.quick:
        args.calls, args.warmup_calls, args.duration, args.runs, args.rounds = 200, 20, 2.0, 2, 1
        args.fleet, args.registry_duration = 200, 2.0
    missing = mm.missing_tools()
    if missing:
        print(
            f"mesh_bench: MCP Mesh tools missing ({missing}); run scripts/install-mcp-mesh.sh",
            file=sys.stderr,
        )
        return 2
    if not AUTOCANNON.exists():
        print("mesh_bench: autocannon missing; run scripts/install-node-tools.sh", file=sys.stderr)
        return 2
    phases = [p.strip() for p in args.phases.split(",") if p.strip()]

    def on_term(signum: int, _frame: Any) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, on_term)
    run = Run(short=args.quick or args.calls < 2000 or args.rounds < 3 or args.fleet < 1000)
    results: dict[str, Any] = {"phases": phases, "options": vars(args)}
    try:
        with tempfile.TemporaryDirectory(prefix="mesh-bench-") as tmp_name:
            tmp = Path(tmp_name)
            if "calc" in phases:
                results["calc"] = phase_calc(args, tmp)
            if "topology" in phases:
                configs = {"ours-5s": ("ours", None, True), "ours-1s": ("ours", 1.0, False)}
                configs["mcp"] = ("mcp", None, True)
                results["topology"] = phase_topology(configs, args, tmp)
            if "registry" in phases:
                results["registry"] = phase_registry(("ours", "mcp"), args, tmp, args.fleet)
                if args.small_fleet:
                    results["registry_small"] = phase_registry(("ours", "mcp"), args, tmp, args.small_fleet)
    finally:
        stop_all()
    results["mcp_mesh"] = "registry @mcpmesh/cli-linux-x64 3.7.1, agents mcp-mesh 3.8.0 (tests/interop)"
    save_results("mesh", run, results)
    return 0


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(main())
