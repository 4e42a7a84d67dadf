"""What metrics and the drain count cost a tool call: the agent's ASGI app called in process (no uvicorn,
no socket), the same `add` call in three ways.

  endpoint      the MCP endpoint called directly: no path check, no in-flight count, no metrics
  metrics-off   the agent's app (path check and in-flight count for graceful stop), no metrics hook
  metrics-on    the agent's app as it ships (metrics.enabled true): calls, errors and latency recorded

Best of R rounds of N calls per variant, the variants taking turns every 250 calls inside a round; process
CPU time per call; ratios against `metrics-off` of the same run, and one `MeshMetrics.tool_call` alone.
Results: benchmarks/results/metrics.json (benchmarks/report.py writes the page from it).
Usage: .venv/bin/python benchmarks/metrics_bench.py [-n 4000] [--rounds 7]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))

from _common import AGENT_CONFIG, Run, call_body, call_headers, save_results  # noqa: E402
from profile_inproc import call_once  # noqa: E402

from mesh_framework import MeshApplication  # noqa: E402
from mesh_framework.metrics import MeshMetrics  # noqa: E402

VARIANTS = ("endpoint", "metrics-off", "metrics-on")


CHUNK = 250  # the variants take turns every CHUNK calls


async def measure(n: int, rounds: int, chunk: int = CHUNK) -> dict[str, float]:
    app = MeshApplication.load(
        "bench_agent", cli={"server.host": "127.0.0.1", "server.port": 0}, config=AGENT_CONFIG
    ).build()
    endpoint = app.endpoint
    hook = endpoint.on_tool_call
    if hook is None:
        raise RuntimeError("metrics are not hooked: is metrics.enabled false?")
    body = call_body(modern=True).encode()
    headers = call_headers(modern=True)

    def switch(variant: str) -> Any:
        endpoint.on_tool_call = None if variant == "metrics-off" else hook
        return endpoint if variant == "endpoint" else app

    best: dict[str, float] = {}
    async with app.router.lifespan_context(app):
        for variant in VARIANTS:
            target = switch(variant)
            status, payload = await call_once(target, headers, body)
            if status != 200 or b'"isError":false' not in payload:
                raise RuntimeError(f"{variant}: HTTP {status}: {payload[:300]!r}")
            for _ in range(min(500, n)):
                await call_once(target, headers, body)
        for _ in range(rounds):
            spent = dict.fromkeys(VARIANTS, 0.0)
            for _ in range(max(1, n // chunk)):
                for variant in VARIANTS:
                    target = switch(variant)
                    started = time.process_time()
                    for _ in range(chunk):
                        await call_once(target, headers, body)
                    spent[variant] += time.process_time() - started
            for variant, seconds in spent.items():
                value = seconds / (max(1, n // chunk) * chunk) * 1e6
                best[variant] = min(best.get(variant, value), value)
    return best


def hook_alone(n: int, rounds: int) -> float:
    metrics = MeshMetrics()
    best = float("inf")
    for _ in range(rounds):
        started = time.process_time()
        for _ in range(n):
            metrics.tool_call("add", False, 0.0001)
        best = min(best, (time.process_time() - started) / n * 1e6)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=4000, help="calls per variant and round")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    run = Run(short=args.n < 4000 or args.rounds < 7)
    best = asyncio.run(measure(args.n, args.rounds))
    for variant in VARIANTS:
        ratio = best[variant] / best["metrics-off"]
        print(f"{variant:12s} {best[variant]:7.1f} µs/call  {ratio:.2f} x metrics-off", file=sys.stderr)
    save_results(
        "metrics",
        run,
        {
            "calls": args.n,
            "rounds": args.rounds,
            "chunk": CHUNK,
            "us_per_call": best,
            "tool_call_alone_us": hook_alone(args.n * 10, args.rounds),
        },
    )


if __name__ == "__main__":
    main()
