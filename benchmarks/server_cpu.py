"""Server CPU per request under load: our `tools/call add` beside a plain route and the SDK, one run.

Four server processes (one uvicorn worker each, 127.0.0.1, ephemeral ports), loaded one target at a time by
autocannon (Node), each measurement bounded by a duration AND a request cap:

  (a) plain        benchmarks/plain_app.py's route (reads and parses the body, answers the sum) on stock
                   uvicorn, sent the legacy request
  (a') plain-2026  the same, sent the 2026-07-28 request (three headers and the envelope more to parse)
  (a'') plain-ours the same route on the agents' HTTP stack (benchmarks/plain_on_our_stack.py: our socket
                   options, uvicorn configuration and one-write protocol), sent the 2026-07-28 request
  (b) mesh-2026    our agent, tools/call add, 2026-07-28 path (headers + _meta envelope)
  (b') mesh-sync   the same agent and path, tools/call add_sync: the same body as a sync tool (`def`), run in
                   a worker thread; (b')/(b) is what the hand-off to a thread costs
  (c) mesh-legacy  our agent, tools/call add, legacy stateless path (no MCP-Protocol-Version)
  (d) sdk-2026 / sdk-legacy  the mcp SDK low-level Server, stateless, json_response=True

CPU per request = delta of utime+stime of the server's PID (/proc/PID/stat) / completed (2xx) requests.
Each target gets a warm-up, then `--repeats` measurements; every round runs each target once (the order
rotates from round to round), and the median is reported. Results: benchmarks/results/server_cpu.json
(benchmarks/report.py writes the page from it).

Usage: .venv/bin/python benchmarks/server_cpu.py [-c 16] [-d 5] [--repeats 3] [--max-requests 200000]
"""

from __future__ import annotations

import argparse
import http.client
import json
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Any

from _common import (
    AUTOCANNON,
    HOST,
    MCP_PATH,
    ROOT,
    SERVER_KINDS,
    SERVER_LABELS,
    Run,
    Server,
    call_body,
    call_headers,
    cpu_seconds,
    display_command,
    median,
    post,
    save_results,
    servers,
    wait_until_answers,
)


@dataclass(frozen=True)
class Target:
    key: str
    label: str
    server: str
    modern: bool
    tool: str = "add"


TARGETS = [
    Target("plain", "(a) plain Starlette route, stock uvicorn", "plain", False),
    Target("plain-2026", "(a') the same, sent the 2026-07-28 request", "plain", True),
    Target("plain-ours", "(a'') plain route on our HTTP stack, 2026-07-28 request", "plain-ours", True),
    Target("mesh-2026", "(b) mesh_framework tools/call, 2026-07-28", "mesh", True),
    Target("mesh-sync", "(b') the same, a sync tool (`def`, worker thread)", "mesh", True, "add_sync"),
    Target("mesh-legacy", "(c) mesh_framework tools/call, legacy", "mesh", False),
    Target("sdk-2026", "(d) SDK low-level tools/call, 2026-07-28", "sdk", True),
    Target("sdk-legacy", "(d) SDK low-level tools/call, legacy", "sdk", False),
]


def autocannon_argv(
    target: Target, port: int, connections: int, duration: float, max_requests: int
) -> list[str]:
    node = shutil.which("node")
    if node is None:
        raise SystemExit("server_cpu: `node` is not on PATH")
    argv = [
        node,
        str(AUTOCANNON),
        "-c",
        str(connections),
        "-d",
        f"{duration:g}",
        "-M",
        str(max_requests),
        "-m",
        "POST",
        "--json",
        "-b",
        call_body(1, 2, modern=target.modern, tool=target.tool),
    ]
    for name, value in call_headers(modern=target.modern, tool=target.tool).items():
        argv += ["-H", f"{name}={value}"]
    argv.append(f"http://{HOST}:{port}{MCP_PATH}")
    return argv


def run_load(server: Server, argv: list[str], duration: float) -> dict[str, Any]:
    server.check()
    cpu_before = cpu_seconds(server.pid)
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, timeout=duration + 60, check=False)
    elapsed = time.perf_counter() - started
    cpu_after = cpu_seconds(server.pid)
    if done.returncode != 0:
        raise RuntimeError(f"autocannon failed ({done.returncode}): {done.stderr[-2000:]}")
    result = json.loads(done.stdout)
    completed = int(result["2xx"])
    failed = int(result["non2xx"]) + int(result["errors"]) + int(result["timeouts"])
    if completed == 0 or failed:
        raise RuntimeError(
            f"{server.kind}: {completed} ok, {failed} failed (non2xx/errors/timeouts): "
            f"{result.get('statusCodeStats')}\n{server.tail()}"
        )
    cpu = cpu_after - cpu_before
    return {
        "requests": completed,
        "duration_s": float(result["duration"]),
        "req_per_s": completed / float(result["duration"]),
        "p50_ms": float(result["latency"]["p50"]),
        "p99_ms": float(result["latency"]["p99"]),
        "cpu_s": cpu,
        "cpu_util": cpu / elapsed,
        "cpu_us_per_req": cpu / completed * 1e6,
    }


def check_answer(target: Target, server: Server) -> None:
    """One request before the load: the target must answer 200 with the sum (and the envelope on 2026)."""
    conn = http.client.HTTPConnection(HOST, server.port, timeout=10)
    try:
        status, payload = post(
            conn,
            call_body(20, 22, modern=target.modern, tool=target.tool),
            call_headers(modern=target.modern, tool=target.tool),
        )
    finally:
        conn.close()
    if status != 200:
        raise RuntimeError(f"{target.key}: HTTP {status}: {payload[:300]!r}")
    answer = json.loads(payload)["result"]
    if answer.get("structuredContent") != {"result": 42}:
        raise RuntimeError(f"{target.key}: wrong answer {answer}")
    if not target.server.startswith("plain") and target.modern != ("resultType" in answer):
        raise RuntimeError(f"{target.key}: answered on the wrong protocol path: {answer}")


def wait_plain(server: Server, timeout: float = 30.0) -> None:
    deadline = time.perf_counter() + timeout
    while True:
        try:
            check_answer(TARGETS[0], server)
            return
        except (ConnectionError, OSError):
            if time.perf_counter() > deadline:
                raise
            server.check()
            time.sleep(0.01)


def summarize(runs: dict[str, list[dict[str, Any]]]) -> dict[str, dict[str, float]]:
    summary = {}
    for key, samples in runs.items():
        summary[key] = {
            metric: median([s[metric] for s in samples])
            for metric in ("req_per_s", "p50_ms", "p99_ms", "cpu_us_per_req", "cpu_util")
        }
    base = summary.get("plain", {}).get("cpu_us_per_req")
    for row in summary.values():
        if base:
            row["cpu_ratio_vs_plain"] = row["cpu_us_per_req"] / base
    return summary


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("-c", "--connections", type=int, default=16)
    parser.add_argument("-d", "--duration", type=float, default=5.0, help="seconds per measurement")
    parser.add_argument(
        "--warmup", type=float, default=2.0, help="seconds of warm-up load before each measurement"
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--max-requests", type=int, default=200_000, help="request cap per autocannon run")
    parser.add_argument(
        "--only",
        nargs="+",
        choices=[t.key for t in TARGETS],
        help="measure these targets only and print them (no results file: the page needs every target)",
    )
    args = parser.parse_args()
    targets = [t for t in TARGETS if not args.only or t.key in args.only]
    kinds = tuple(k for k in SERVER_KINDS if any(t.server == k for t in targets))
    if not AUTOCANNON.exists():
        print(
            "server_cpu: autocannon missing; installing it with scripts/install-node-tools.sh",
            file=sys.stderr,
        )
        subprocess.run([str(ROOT / "scripts" / "install-node-tools.sh")], check=True, timeout=900)

    run = Run(short=args.repeats < 3 or args.duration < 5)
    runs: dict[str, list[dict[str, Any]]] = {t.key: [] for t in targets}
    commands: dict[str, str] = {}
    load_commands: dict[str, str] = {}
    with servers(kinds) as started:
        for kind, server in started.items():
            if kind.startswith("plain"):
                wait_plain(server)
            else:
                wait_until_answers(server)
        for target in targets:
            check_answer(target, started[target.server])
        for kind, server in started.items():
            commands[kind] = server.shown()
        for round_no in range(args.repeats):
            shift = round_no % len(targets)
            for target in targets[shift:] + targets[:shift]:
                server = started[target.server]
                assert server.port is not None
                warm = autocannon_argv(target, server.port, args.connections, args.warmup, args.max_requests)
                run_load(server, warm, args.warmup)
                argv = autocannon_argv(
                    target, server.port, args.connections, args.duration, args.max_requests
                )
                sample = run_load(server, argv, args.duration)
                runs[target.key].append(sample)
                load_commands[target.key] = display_command(argv).replace(str(server.port), "<port>")
                print(
                    f"round {round_no + 1} {target.key:12s} {sample['req_per_s']:7.0f} req/s  "
                    f"p50 {sample['p50_ms']:.0f} ms  p99 {sample['p99_ms']:.0f} ms  "
                    f"{sample['cpu_us_per_req']:6.0f} µs/req  util {sample['cpu_util']:.2f}",
                    file=sys.stderr,
                )
            for target in targets:  # still answering correctly after the load
                check_answer(target, started[target.server])
    if args.only:
        for key, row in summarize(runs).items():
            print(f"{key:12s} {row['cpu_us_per_req']:6.1f} µs/req  {row['req_per_s']:7.0f} req/s")
        return 0

    save_results(
        "server_cpu",
        run,
        {
            "settings": {
                "connections": args.connections,
                "duration_s": args.duration,
                "warmup_s": args.warmup,
                "repeats": args.repeats,
                "max_requests": args.max_requests,
            },
            "servers": {
                kind: {"label": SERVER_LABELS[kind], "command": commands[kind]} for kind in SERVER_KINDS
            },
            "targets": [
                {
                    "key": t.key,
                    "label": t.label,
                    "server": t.server,
                    "modern": t.modern,
                    "command": load_commands[t.key],
                }
                for t in TARGETS
            ],
            "runs": runs,
            "summary": summarize(runs),
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
