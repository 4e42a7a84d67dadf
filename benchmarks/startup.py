"""Start-up time and memory: process start → first `tools/list` answered, and RSS, ours beside the SDK.

Each run picks a free port, starts the server as a subprocess (127.0.0.1) and POSTs `tools/list`
(2026-07-28 path) in a tight loop (1 ms pause after a refused connection) until one is answered 200 with the
tool in it. Then it reads VmRSS (/proc/PID/status), sends `--calls` tools/call add with autocannon (half on
each protocol path, capped by count and by a time-out), reads VmRSS again and stops the server by PID.
Runs alternate between the servers; one untimed start of each comes first (warms the page cache and writes
the .pyc files). The medians of `--runs` runs are reported; results go to benchmarks/results/startup.json.

  starter        .venv/bin/python -m mesh_framework.cli run starter_app --port N   (the starter app, from
                 the repository root, its embedded registry on a free port)
  mesh           .venv/bin/python -m mesh_framework.cli run bench_agent --port N   (the benchmark agent:
                 one tool, no registry, like the SDK anchor)
  mesh-registry  the same agent joining a mesh (it starts an embedded registry on a free port)
  sdk            .venv/bin/python -m uvicorn sdk_lowlevel_app:app --port N         (mcp SDK low-level Server)

Each run also starts the floors (`FLOORS`): the same interpreter importing only the libraries an agent
cannot start without, then exiting; its time from start to exit and its VmRSS at the end are what no agent
on these libraries can go below.

Usage: .venv/bin/python benchmarks/startup.py [--runs 10] [--calls 1000]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from typing import Any

from _common import (
    AUTOCANNON,
    ENV_MODES,
    HOST,
    MCP_PATH,
    PYTHON,
    ROOT,
    SERVER_LABELS,
    Run,
    Server,
    call_body,
    call_headers,
    median,
    rss_mib,
    save_results,
    server_env,
    wait_until_answers,
)

KINDS = ("starter", "mesh", "mesh-registry", "sdk")
OPTIONAL = {"mesh-registry"}  # a failure of these is reported, not fatal
# The floors: the libraries imported, nothing served. "web": the HTTP stack and validation; "dependencies":
# every runtime library the starter app imports before its first call (dependency-injector brings
# pydantic-settings; the starter app's prompts need jinja2, its metrics prometheus-client).
FLOORS = {
    "web": "uvicorn, starlette.applications, pydantic",
    "dependencies": "uvicorn, starlette.applications, pydantic, pydantic_settings, httpx2, "
    "dependency_injector.containers, yaml, jinja2, prometheus_client",
}
_REPORT_RSS = (
    "\nimport sys\nsys.stdout.write(next(l for l in open('/proc/self/status') if l.startswith('VmRSS:')))"
)
ENV_SHOWN = {
    "mesh-registry": "MESH_REGISTRY__ENABLED=true MESH_REGISTRY__EMBEDDED_PORT=<free port> ",
    "starter": "MESH_REGISTRY__EMBEDDED_PORT=<free port> ",
}


def send_calls(server: Server, count: int, *, modern: bool) -> int:
    """`count` tools/call add over 8 keep-alive connections; returns how many were answered 2xx."""
    node = shutil.which("node")
    if node is None:
        raise SystemExit("startup: `node` is not on PATH")
    argv = [
        node,
        str(AUTOCANNON),
        "-c",
        str(min(8, count)),
        "-a",
        str(count),
        "-m",
        "POST",
        "--json",
        "-b",
        call_body(1, 2, modern=modern),
    ]
    for name, value in call_headers(modern=modern).items():
        argv += ["-H", f"{name}={value}"]
    argv.append(f"http://{HOST}:{server.port}{MCP_PATH}")
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"autocannon failed: {done.stderr[-2000:]}")
    result = json.loads(done.stdout)
    return int(result["2xx"])


def one_run(kind: str, calls: int, mode: str) -> dict[str, Any]:
    server = Server(kind, env=server_env(mode))
    try:
        answered = wait_until_answers(server, timeout=30.0, modern=True)
        startup = answered - server.t_exec
        rss_serving = rss_mib(server.pid)
        ok = 0
        if calls:
            ok = send_calls(server, calls // 2, modern=True) + send_calls(
                server, calls - calls // 2, modern=False
            )
            if ok != calls:
                raise RuntimeError(f"{kind}: only {ok} of {calls} calls answered 2xx\n{server.tail()}")
        rss_after = rss_mib(server.pid)
        return {
            "startup_s": startup,
            "rss_serving_mib": rss_serving,
            "rss_after_calls_mib": rss_after,
            "calls_ok": ok,
            "command": ENV_SHOWN.get(kind, "") + server.shown(),
            "cwd": "." if kind == "starter" else "benchmarks",
        }
    finally:
        server.stop(grace=8)


def one_floor(name: str, mode: str) -> dict[str, float]:
    """Start → exit of the interpreter importing `FLOORS[name]`, and its VmRSS just before it exits."""
    argv = [PYTHON, "-c", f"import {FLOORS[name]}" + _REPORT_RSS]
    started = time.perf_counter()
    done = subprocess.run(
        argv, cwd=ROOT, env=server_env(mode), capture_output=True, text=True, timeout=60, check=False
    )
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"floor {name}: {done.stderr[-1000:]}")
    return {"exit_s": elapsed, "rss_mib": int(done.stdout.split()[1]) / 1024}


def summarize_floors(samples: dict[str, list[dict[str, float]]]) -> dict[str, Any]:
    return {
        name: {
            "command": f"python -c 'import {FLOORS[name]}'",
            "exit_median_s": median([s["exit_s"] for s in runs]),
            "exit_min_s": min(s["exit_s"] for s in runs),
            "rss_median_mib": median([s["rss_mib"] for s in runs]),
        }
        for name, runs in samples.items()
        if runs
    }


def summarize(runs: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    summary: dict[str, dict[str, Any]] = {}
    for kind, samples in runs.items():
        if not samples:
            continue
        times = [s["startup_s"] for s in samples]
        summary[kind] = {
            "label": SERVER_LABELS[kind],
            "command": samples[0]["command"],
            "cwd": samples[0]["cwd"],
            "startup_median_s": median(times),
            "startup_min_s": min(times),
            "startup_max_s": max(times),
            "rss_serving_median_mib": median([s["rss_serving_mib"] for s in samples]),
            "rss_after_calls_median_mib": median([s["rss_after_calls_mib"] for s in samples]),
            "rss_after_calls_max_mib": max(s["rss_after_calls_mib"] for s in samples),
        }
    return {"summary": summary}


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument(
        "--calls", type=int, default=1000, help="tools/call add sent before the second RSS reading"
    )
    parser.add_argument(
        "--modes",
        nargs="+",
        choices=sorted(ENV_MODES),
        default=["env"],
        help="env: the environment as is (default); pyc: a private bytecode cache (for a venv without .pyc)",
    )
    args = parser.parse_args()
    if not AUTOCANNON.exists():
        print(
            "startup: autocannon missing; installing it with scripts/install-node-tools.sh", file=sys.stderr
        )
        subprocess.run([str(ROOT / "scripts" / "install-node-tools.sh")], check=True, timeout=900)

    run = Run(short=args.runs < 10)
    results: dict[str, Any] = {}
    for mode in args.modes:
        failures: dict[str, str] = {}
        runs: dict[str, list[dict[str, Any]]] = {kind: [] for kind in KINDS}
        floors: dict[str, list[dict[str, float]]] = {name: [] for name in FLOORS}
        for run_no in range(-1, args.runs):  # run -1: untimed warm-up start (fills the bytecode cache)
            for kind in KINDS:
                if kind in failures:
                    continue
                try:
                    sample = one_run(kind, args.calls if run_no >= 0 else 0, mode)
                except Exception as exc:
                    if kind not in OPTIONAL:
                        raise
                    failures[kind] = f"{type(exc).__name__}: {str(exc).strip().splitlines()[-1][:300]}"
                    print(f"[{mode}] {kind} failed, skipped: {failures[kind]}", file=sys.stderr)
                    continue
                if run_no < 0:
                    continue
                runs[kind].append(sample)
                print(
                    f"[{mode}] run {run_no + 1:2d} {kind:13s} start→tools/list "
                    f"{sample['startup_s'] * 1000:6.0f} ms  "
                    f"RSS {sample['rss_serving_mib']:.1f} → {sample['rss_after_calls_mib']:.1f} MiB",
                    file=sys.stderr,
                )
            for name in FLOORS:
                floor = one_floor(name, mode)
                if run_no >= 0:
                    floors[name].append(floor)
            time.sleep(0.2)
        results[mode] = summarize(runs)
        results[mode]["floors"] = summarize_floors(floors)
        results[mode]["runs"] = runs
        results[mode]["failures"] = failures
    save_results(
        "startup",
        run,
        {
            "settings": {"runs": args.runs, "calls": args.calls},
            "modes": {m: ENV_MODES[m] for m in args.modes},
            "results": results,
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
