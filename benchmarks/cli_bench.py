"""The `mesh` command's own start: `mesh --help` and `mesh list`, beside MCP Mesh's `meshctl` (Go), one run.

A registry (`mesh registry`, 127.0.0.1, a free port) with one agent registered (the benchmark agent joining
it) is started first; then every command runs `--runs` times, the commands taking turns (the order rotates
every run), after one untimed run of each. Wall time from just before the process is started to its exit,
median and min-max; every run must exit 0 (`list` must name the agent). `meshctl list` asks the same
registry (it speaks MCP Mesh's registry API). `python -c pass` (the same interpreter starting and
exiting) is the floor of any Python command. Every command runs with the framework's and MCP Mesh's
settings removed from its environment.

    .venv/bin/python benchmarks/cli_bench.py [--runs 20]

Results: benchmarks/results/cli.json (benchmarks/report.py writes the page from it).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(1, str(BENCH_DIR.parent))

from _common import AGENT_CONFIG, HOST, PYTHON, ROOT, Run, free_port, median, save_results  # noqa: E402
from processes import Proc, clean_env, http_status, stop_all, wait_for  # noqa: E402

from tests.interop import mcp_mesh as mm  # noqa: E402

MESH = Path(PYTHON).parent / "mesh"


def commands(registry: str) -> dict[str, list[str]]:
    found = {
        "python -c pass": [PYTHON, "-c", "pass"],
        "mesh --help": [str(MESH), "--help"],
        "mesh list": [str(MESH), "list", "--registry-url", registry],
    }
    if os.access(mm.MESHCTL_BIN, os.X_OK):
        found["meshctl --help"] = [str(mm.MESHCTL_BIN), "--help"]
        found["meshctl list"] = [str(mm.MESHCTL_BIN), "list", "--registry-url", registry]
    return found


def shown(argv: list[str]) -> str:
    return " ".join(
        "<registry>" if a.startswith("http://") else os.path.relpath(a, ROOT) if a.startswith("/") else a
        for a in argv
    )


def timed(argv: list[str], env: dict[str, str], expect: str) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=ROOT, capture_output=True, text=True, timeout=60, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0 or expect not in done.stdout:
        raise RuntimeError(
            f"{shown(argv)}: exit {done.returncode}, output {(done.stdout + done.stderr)[-800:]}"
        )
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    if not MESH.exists():
        print(
            f"cli_bench: {os.path.relpath(MESH, ROOT)} is missing; run scripts/bootstrap.sh", file=sys.stderr
        )
        return 2
    run = Run(short=args.runs < 20)
    env = clean_env({})
    samples: dict[str, list[float]] = {}
    try:
        port = free_port()
        registry = Proc(
            "registry",
            [PYTHON, "-m", "mesh_framework.cli", "registry", "--host", HOST, "--port", str(port)],
            env=clean_env({"MESH_LOGGING__LEVEL": "WARNING"}),
        )
        url = f"http://{HOST}:{port}"
        wait_for(lambda: http_status(url + "/health") == 200, 30, "registry /health", procs=[registry])
        agent_env = {"MESH_REGISTRY__ENABLED": "true", "MCP_MESH_REGISTRY_URL": url}
        run_agent = ["run", "bench_agent", "--host", HOST, "--port", str(free_port())]
        agent = Proc(
            "agent",
            [PYTHON, "-m", "mesh_framework.cli", *run_agent, "--config", str(AGENT_CONFIG)],
            env=clean_env(agent_env),
            cwd=BENCH_DIR,
        )

        def listed() -> bool:
            argv = [str(MESH), "list", "--registry-url", url]
            done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=30, check=False)
            return "bench" in done.stdout

        wait_for(listed, 60, "the agent listed by the registry", procs=[registry, agent], interval=0.2)
        table = commands(url)
        expect = {name: ("bench" if name.endswith("list") else "") for name in table}
        for name, argv in table.items():  # untimed: page cache, bytecode
            timed(argv, env, expect[name])
        names = list(table)
        samples = {name: [] for name in names}
        for number in range(args.runs):
            shift = number % len(names)
            for name in names[shift:] + names[:shift]:
                samples[name].append(timed(table[name], env, expect[name]))
        summary: dict[str, Any] = {
            name: {
                "command": shown(table[name]),
                "median_s": median(values),
                "min_s": min(values),
                "max_s": max(values),
            }
            for name, values in samples.items()
        }
    finally:
        stop_all()
    for name, row in summary.items():
        print(f"{name:16s} {row['median_s'] * 1000:6.0f} ms", file=sys.stderr)
    save_results("cli", run, {"runs": args.runs, "summary": summary, "samples": samples})
    return 0


if __name__ == "__main__":
    sys.exit(main())
