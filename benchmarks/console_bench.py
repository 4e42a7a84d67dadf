"""What the console costs: the call path of an agent that feeds it, the registry's memory at full retention,
and the page's first paint.

1. CPU per `tools/call` served, the agent's ASGI app called in process (no uvicorn, no socket), variants
   taking turns every 250 calls inside a round, best of R rounds; the CPU the console adds is also put
   against the agent's CPU per tools/call over HTTP (server_cpu.json), which is what a call costs:

     off                  what an agent runs when no registry gathers (MCP Mesh's registry answered 404)
     console              what the console adds as the agent wires it: the counters (read from the
                          metrics' own), the trace decision per call, a span for the traces kept
                          (`tracing.console_traces_per_second`, refilled each wall-clock second, as the
                          push does), and the push's own work (its JSON body) done every 250 calls
     console-traceparent  as console, each request continuing a caller's sampled W3C traceparent: every
                          call is traced (what a span costs)

2. The registry's memory with 100 agents at full retention: a `ConsoleBoard` holding 100 agents with 5
   tools and 2 dependency edges each, every 10 s bucket of the 5-minute window filled, tokens for each,
   and traces up to the span bound (2,000 traces of 25 spans: 50,000 spans). Python's allocations
   (tracemalloc) of the board, and the time to build the page's document from it.

3. First paint of `/ui` over loopback in Debian's Chromium (Playwright), the registry holding the board of
   2.: median of 10 loads (`first-contentful-paint`). A figure, not a test.

Results: benchmarks/results/console.json. Usage: .venv/bin/python benchmarks/console_bench.py [-n 4000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import threading
import time
import tracemalloc
from collections import deque
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))

from _common import AGENT_CONFIG, Run, call_body, call_headers, save_results  # noqa: E402
from profile_inproc import call_once  # noqa: E402

from mesh_framework import MeshApplication, observation  # noqa: E402
from mesh_framework.config.settings import TracingSettings  # noqa: E402
from mesh_framework.console_feed import BUCKET_BOUNDS, SPAN_BUFFER, ConsolePush, TrafficRecorder  # noqa: E402
from mesh_framework.registry.console.board import BUCKET_SECONDS, WINDOW_SECONDS, ConsoleBoard  # noqa: E402
from mesh_framework.tracing import SpanTracer, state  # noqa: E402
from mesh_framework.tracing.sampling import TraceBudget  # noqa: E402

VARIANTS = ("off", "console", "console-traceparent")
TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
CHUNK = 250
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


async def call_path(n: int, rounds: int) -> dict[str, float]:
    mesh_app = MeshApplication.load(
        "bench_agent", cli={"server.host": "127.0.0.1", "server.port": 0}, config=AGENT_CONFIG
    )
    app = mesh_app.build()
    # The tracer an agent that joins a registry installs (tracing/auto_configuration.py); the bench agent
    # joins none, so the console's spans are switched on by hand below, as its push would.
    observation.install(SpanTracer(TracingSettings(), agent="bench", json_logs=False))
    endpoint = mesh_app.container.mcp_endpoint()
    metrics = mesh_app.container.metrics()
    if endpoint.on_tool_call != metrics.calls.tool_call:
        raise RuntimeError("the bench agent's metrics are off: the console would count calls itself")
    recorder = TrafficRecorder()
    recorder.follow(metrics.calls.tools, metrics.calls.bounds)  # as application/observability.py wires it
    spans: deque[Any] = deque(maxlen=SPAN_BUFFER)
    push = ConsolePush(None, lambda: "", "bench-1", recorder, spans)  # type: ignore[arg-type]
    budget = TraceBudget()
    state.budget = budget
    refilled = [time.monotonic()]
    body = call_body(modern=True).encode()
    plain = call_headers(modern=True)
    headers = {v: {**plain, "traceparent": TRACEPARENT} if "traceparent" in v else plain for v in VARIANTS}

    def switch(variant: str) -> None:
        state.spans = None if variant == "off" else spans
        if time.monotonic() - refilled[0] >= 1.0:  # the push refills the budget once a second
            budget.refill()
            refilled[0] = time.monotonic()

    best: dict[str, float] = {}
    async with app.router.lifespan_context(app):
        for variant in VARIANTS:
            switch(variant)
            status, payload = await call_once(app, headers[variant], body)
            if status != 200 or b'"isError":false' not in payload:
                raise RuntimeError(f"{variant}: HTTP {status}: {payload[:300]!r}")
            for _ in range(min(500, n)):
                await call_once(app, headers[variant], body)
        if not spans or push.payload() is None:
            raise RuntimeError("the console variant recorded nothing")
        for _ in range(rounds):
            spent = dict.fromkeys(VARIANTS, 0.0)
            for _ in range(max(1, n // CHUNK)):
                for variant in VARIANTS:
                    switch(variant)
                    started = time.process_time()
                    for _ in range(CHUNK):
                        await call_once(app, headers[variant], body)
                    if variant != "off":
                        json.dumps(push.payload())  # the push's body, as it is built once a second
                    spent[variant] += time.process_time() - started
            for variant, seconds in spent.items():
                value = seconds / (max(1, n // CHUNK) * CHUNK) * 1e6
                best[variant] = min(best.get(variant, value), value)
    state.spans = None
    return best


def full_board(
    agents: int = 100, tools: int = 5, traces: int = 2000, spans_per_trace: int = 25
) -> ConsoleBoard:
    """A board at full retention, filled through `ingest` as pushes fill it (the clock walks the window)."""
    now = [1_000_000_000.0]
    board = ConsoleBoard(clock=lambda: now[0])
    histogram = {str(i): 3 for i in range(8, 16)}
    for step in range(WINDOW_SECONDS // BUCKET_SECONDS):
        now[0] = 1_000_000_000.0 + step * BUCKET_SECONDS
        for a in range(agents):
            body = {
                "agent_id": f"agent{a:03d}-0000abcd",
                "tools": [[f"tool{t}", 24, 1, 0.05, histogram] for t in range(tools)],
                "edges": [
                    [
                        f"cap{(a + e) % agents}",
                        f"http://127.0.0.1:{9000 + (a + e + 1) % agents}",
                        24,
                        0,
                        0.04,
                        histogram,
                    ]
                    for e in range(2)
                ],
                "tokens": [["openai/gpt-4o-mini", "tool0", 1200, 300, 2]],
                "spans": [],
            }
            board.ingest(body, lambda endpoint: "agent" + endpoint[-3:] + "-0000abcd")
    for t in range(traces):
        trace = f"{t + 1:032x}"
        spans = [
            [
                trace,
                f"{s + 1:016x}",
                f"{s:016x}" if s else "",
                f"tools/call tool{s % tools}",
                "SERVER",
                "agent: tool",
                now[0],
                0.002,
                "",
            ]
            for s in range(spans_per_trace)
        ]
        board.ingest({"agent_id": f"agent{t % agents:03d}-0000abcd", "spans": spans}, lambda _e: "")
    return board


def registry_memory() -> dict[str, Any]:
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    board = full_board()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    names = {f"agent{a:03d}-0000abcd": f"agent{a:03d}" for a in range(100)}
    timings = []
    for _ in range(5):
        started = time.perf_counter()
        view = board.view(0, lambda agent: names.get(agent, agent))
        timings.append(time.perf_counter() - started)
    document = json.dumps(view)
    return {
        "agents": 100,
        "series": len(board.tools) + len(board.edges),
        "traces": len(board.traces),
        "spans": board.spans,
        "board_mib": round((after - before) / 2**20, 2),
        "view_ms": round(statistics.median(timings) * 1000, 2),
        "view_kib": round(len(document) / 1024, 1),
        "histogram_buckets": len(BUCKET_BOUNDS) + 1,
    }


def first_paint(loads: int = 10) -> dict[str, Any] | None:
    """Median first-contentful-paint of /ui from a registry holding a full board; None without Chromium."""
    if not Path(CHROMIUM).exists():
        print(f"first paint: {CHROMIUM} is missing, skipped", file=sys.stderr)
        return None
    from playwright.sync_api import sync_playwright

    from mesh_framework.registry import start_registry

    ready = threading.Event()
    holder: dict[str, Any] = {}

    def serve() -> None:
        async def main() -> None:
            registry = await start_registry("127.0.0.1", 0)
            board = registry.app.state.console
            filled = full_board()
            board.tools, board.edges, board.tokens = filled.tools, filled.edges, filled.tokens
            board.traces, board.spans, board.seq = filled.traces, filled.spans, filled.seq
            holder["url"], holder["stop"] = registry.url, asyncio.Event()
            ready.set()
            await holder["stop"].wait()
            await registry.stop()

        holder["loop"] = loop = asyncio.new_event_loop()
        loop.run_until_complete(main())

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    ready.wait(30)
    flags = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
    ]
    paints = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=flags)
        for _ in range(loads):
            page = browser.new_page()
            page.goto(holder["url"] + "/ui", wait_until="load")
            page.wait_for_function("performance.getEntriesByName('first-contentful-paint').length > 0")
            paints.append(
                page.evaluate("performance.getEntriesByName('first-contentful-paint')[0].startTime")
            )
            page.close()
        browser.close()
    holder["loop"].call_soon_threadsafe(holder["stop"].set)
    thread.join(10)
    return {"loads": loads, "median_ms": round(statistics.median(paints), 1), "max_ms": round(max(paints), 1)}


def _http_call_cpu() -> float | None:
    """The agent's CPU per tools/call over HTTP (2026-07-28) from benchmarks/results/server_cpu.json."""
    path = BENCH_DIR / "results" / "server_cpu.json"
    try:
        return float(json.loads(path.read_text())["summary"]["mesh-2026"]["cpu_us_per_req"])
    except (OSError, KeyError, TypeError, ValueError):
        return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=4000, help="calls per variant and round")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    run = Run(short=args.n < 4000 or args.rounds < 7)
    best = asyncio.run(call_path(args.n, args.rounds))
    for variant in VARIANTS:
        print(
            f"{variant:20s} {best[variant]:7.1f} µs/call  {best[variant] / best['off']:.3f} x off",
            file=sys.stderr,
        )
    memory = registry_memory()
    print(f"registry board, 100 agents at full retention: {memory}", file=sys.stderr)
    paint = first_paint()
    print(f"first paint: {paint}", file=sys.stderr)
    anchor = _http_call_cpu()
    added = best["console"] - best["off"]
    save_results(
        "console",
        run,
        {
            "calls": args.n,
            "rounds": args.rounds,
            "chunk": CHUNK,
            "us_per_call": best,
            "ratio": best["console"] / best["off"],
            "added_us": added,
            # the added CPU against what one tools/call costs the agent over HTTP (server_cpu.json)
            "http_call_us": anchor,
            "share_of_http_call": added / anchor if anchor else None,
            "registry": memory,
            "first_paint": paint,
        },
    )


if __name__ == "__main__":
    main()
