"""Start-up time and memory: process start → first `tools/list` answered, and RSS, ours beside the SDK.

Each run picks a free port, starts the server as a subprocess (127.0.0.1) and POSTs `tools/list`
(2026-07-28 path) in a tight loop (1 ms pause after a refused connection) until one is answered 200 with the
tool in it. Then it reads VmRSS (/proc/PID/status), sends `--calls` tools/call add with autocannon (half on
each protocol path, capped by count and by a time-out), reads VmRSS again and stops the server by PID.
Runs alternate between the servers; one untimed start of each comes first (warms the page cache and writes
the .pyc files). The medians of `--runs` runs are reported; results go to benchmarks/results/startup.json.

  mesh   .venv/bin/python -m mesh_framework.cli run bench_agent --port N   (the benchmark agent, as shipped)
  sdk    .venv/bin/python -m uvicorn sdk_lowlevel_app:app --port N         (mcp SDK low-level Server)

Usage: .venv/bin/python benchmarks/startup.py [--runs 10] [--calls 1000]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from _common import (
    AUTOCANNON,
    ENV_MODES,
    HOST,
    MCP_PATH,
    RESULTS_DIR,
    ROOT,
    SERVER_LABELS,
    Server,
    call_body,
    call_headers,
    display_command,
    invocation,
    machine_info,
    median,
    rss_mib,
    server_env,
    wait_until_answers,
    write_json,
)

KINDS = ("mesh", "mesh-registry", "sdk")
OPTIONAL = {"mesh-registry"}  # a failure of these is reported, not fatal
ENV_SHOWN = {"mesh-registry": "MESH_REGISTRY__ENABLED=true MESH_REGISTRY__EMBEDDED_PORT=<free port> "}
STARTUP_TARGET_S = 0.6
RSS_TARGET_MIB = 70.0


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
        startup = answered - server.started
        rss_serving = rss_mib(server.pid)
        ok = 0
        if calls:
            ok = send_calls(server, calls // 2, modern=True) + send_calls(
                server, calls - calls // 2, modern=False
            )
            if ok != calls:
                raise RuntimeError(f"{kind}: only {ok} of {calls} calls answered 2xx\n{server.log_text()}")
        rss_after = rss_mib(server.pid)
        return {
            "startup_s": startup,
            "rss_serving_mib": rss_serving,
            "rss_after_calls_mib": rss_after,
            "calls_ok": ok,
            "command": ENV_SHOWN.get(kind, "")
            + display_command(server.argv).replace(str(server.port), "<port>"),
        }
    finally:
        server.stop()


def summarize(runs: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    summary: dict[str, dict[str, Any]] = {}
    for kind, samples in runs.items():
        if not samples:
            continue
        times = [s["startup_s"] for s in samples]
        summary[kind] = {
            "label": SERVER_LABELS[kind],
            "command": samples[0]["command"],
            "startup_median_s": median(times),
            "startup_min_s": min(times),
            "startup_max_s": max(times),
            "rss_serving_median_mib": median([s["rss_serving_mib"] for s in samples]),
            "rss_after_calls_median_mib": median([s["rss_after_calls_mib"] for s in samples]),
            "rss_after_calls_max_mib": max(s["rss_after_calls_mib"] for s in samples),
        }
    mesh, sdk = summary["mesh"], summary["sdk"]
    rss = max(mesh["rss_serving_median_mib"], mesh["rss_after_calls_median_mib"])
    verdicts = {
        "startup": {
            "value": mesh["startup_median_s"],
            "target": STARTUP_TARGET_S,
            "met": mesh["startup_median_s"] <= STARTUP_TARGET_S,
            "ratio_vs_sdk": mesh["startup_median_s"] / sdk["startup_median_s"],
        },
        "rss": {
            "value": rss,
            "target": RSS_TARGET_MIB,
            "met": rss <= RSS_TARGET_MIB,
            "ratio_vs_sdk": mesh["rss_after_calls_median_mib"] / sdk["rss_after_calls_median_mib"],
        },
    }
    return {"summary": summary, "verdicts": verdicts}


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
    parser.add_argument("--out", type=Path, default=RESULTS_DIR / "startup.json")
    args = parser.parse_args()
    if not AUTOCANNON.exists():
        print(
            "startup: autocannon missing; installing it with scripts/install-node-tools.sh", file=sys.stderr
        )
        subprocess.run([str(ROOT / "scripts" / "install-node-tools.sh")], check=True, timeout=900)

    results: dict[str, Any] = {}
    for mode in args.modes:
        failures: dict[str, str] = {}
        runs: dict[str, list[dict[str, Any]]] = {kind: [] for kind in KINDS}
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
            time.sleep(0.2)
        results[mode] = summarize(runs)
        results[mode]["runs"] = runs
        results[mode]["failures"] = failures
    write_json(
        args.out,
        {
            "machine": machine_info(),
            "invocation": invocation(),
            "settings": {"runs": args.runs, "calls": args.calls},
            "modes": {m: ENV_MODES[m] for m in args.modes},
            "results": results,
        },
    )
    for mode in args.modes:
        summary, verdicts = results[mode]["summary"], results[mode]["verdicts"]
        print(f"\n[{mode}] {ENV_MODES[mode]}")
        print("| server | start → tools/list, median (min-max) | RSS serving | RSS after calls |")
        print("|---|---|---|---|")
        for kind, row in summary.items():
            print(
                f"| {kind} | {row['startup_median_s']:.3f} s ({row['startup_min_s']:.3f}-"
                f"{row['startup_max_s']:.3f}) | {row['rss_serving_median_mib']:.1f} MiB | "
                f"{row['rss_after_calls_median_mib']:.1f} MiB |"
            )
        for key, verdict in verdicts.items():
            print(
                f"{key}: {verdict['value']:.3f} (target ≤ {verdict['target']}) "
                f"{'MET' if verdict['met'] else 'MISSED'}, {verdict['ratio_vs_sdk']:.2f} x SDK"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
