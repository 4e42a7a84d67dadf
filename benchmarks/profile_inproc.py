"""Where the time goes: in-process ASGI cost per request, cProfile of one path, start-up profile.

  calls    call each ASGI app directly (no uvicorn, no socket, no client) N times per path and report
           µs/request: plain Starlette route, our agent on both paths, the SDK low-level Server on both paths.
  profile  cProfile N in-process requests of one path (mesh-2026, mesh-legacy, sdk-2026, sdk-legacy, plain)
           and print the top functions by own time and by cumulative time.
  startup  cProfile of what `mesh run bench_agent` does before serving (imports, load, build) in a fresh
           interpreter, printing the top entries by cumulative time.

Usage: .venv/bin/python benchmarks/profile_inproc.py calls [-n 5000]
       .venv/bin/python benchmarks/profile_inproc.py profile mesh-2026 [-n 5000] [--top 25]
       .venv/bin/python benchmarks/profile_inproc.py startup [--top 30] [--mode pyc|env]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import io
import pstats
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))

from _common import (  # noqa: E402
    AGENT_CONFIG,
    PYTHON,
    Run,
    call_body,
    call_headers,
    save_results,
    server_env,
)

PATHS = ("plain", "mesh-2026", "mesh-legacy", "sdk-2026", "sdk-legacy")
App = Callable[[dict[str, Any], Any, Any], Awaitable[None]]


def _scope(headers: dict[str, str], body: bytes) -> dict[str, Any]:
    raw = [(k.lower().encode(), v.encode()) for k, v in headers.items()]
    raw += [(b"host", b"127.0.0.1:8000"), (b"content-length", str(len(body)).encode())]
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/mcp",
        "raw_path": b"/mcp",
        "root_path": "",
        "query_string": b"",
        "headers": raw,
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
    }


async def call_once(app: App, headers: dict[str, str], body: bytes) -> tuple[int, bytes]:
    scope = _scope(headers, body)
    sent = False
    status = 0
    chunks: list[bytes] = []

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.sleep(3600)
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    await app(scope, receive, send)
    return status, b"".join(chunks)


@contextlib.asynccontextmanager
async def apps() -> AsyncIterator[dict[str, tuple[App, dict[str, str], bytes]]]:
    """Every path's ASGI app (lifespans entered), headers and body."""
    import plain_app
    import sdk_lowlevel_app

    from mesh_framework import MeshApplication

    mesh = MeshApplication.load(
        "bench_agent", cli={"server.host": "127.0.0.1", "server.port": 0}, config=AGENT_CONFIG
    ).build()
    async with contextlib.AsyncExitStack() as stack:
        for app in (mesh, sdk_lowlevel_app.app):
            await stack.enter_async_context(app.router.lifespan_context(app))
        yield {
            "plain": (plain_app.app, call_headers(modern=False), call_body(modern=False).encode()),
            "mesh-2026": (mesh, call_headers(modern=True), call_body(modern=True).encode()),
            "mesh-legacy": (mesh, call_headers(modern=False), call_body(modern=False).encode()),
            "sdk-2026": (sdk_lowlevel_app.app, call_headers(modern=True), call_body(modern=True).encode()),
            "sdk-legacy": (
                sdk_lowlevel_app.app,
                call_headers(modern=False),
                call_body(modern=False).encode(),
            ),
        }


async def run_many(app: App, headers: dict[str, str], body: bytes, n: int) -> float:
    status, payload = await call_once(app, headers, body)
    if status != 200:
        raise RuntimeError(f"HTTP {status}: {payload[:300]!r}")
    for _ in range(min(500, n)):  # warm-up
        await call_once(app, headers, body)
    started = time.process_time()
    for _ in range(n):
        await call_once(app, headers, body)
    return (time.process_time() - started) / n * 1e6


async def cmd_calls(n: int, rounds: int) -> None:
    run = Run(short=n < 5000)
    samples: dict[str, list[float]] = {key: [] for key in PATHS}
    async with apps() as table:
        for round_no in range(rounds):
            shift = round_no % len(PATHS)
            for key in PATHS[shift:] + PATHS[:shift]:
                app, headers, body = table[key]
                samples[key].append(await run_many(app, headers, body, n))
    best = {key: min(values) for key, values in samples.items()}
    for key in PATHS:
        print(
            f"{key:12s} {best[key]:7.1f} µs/request  {best[key] / best['plain']:.2f} x plain", file=sys.stderr
        )
    save_results("inproc", run, {"n": n, "rounds": rounds, "us_per_request": best, "samples": samples})


async def cmd_profile(path: str, n: int, top: int) -> None:
    async with apps() as table:
        app, headers, body = table[path]
        await run_many(app, headers, body, 500)
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(n):
            await call_once(app, headers, body)
        profiler.disable()
    for order in ("tottime", "cumulative"):
        stream = io.StringIO()
        stats = pstats.Stats(profiler, stream=stream).strip_dirs().sort_stats(order)
        stats.print_stats(top)
        print(f"== {path}: {n} requests, sorted by {order} ==")
        print("\n".join(line for line in stream.getvalue().splitlines() if line.strip())[:20000])


STARTUP_SNIPPET = """
import cProfile, pstats, sys, time
t0 = time.perf_counter()
profiler = cProfile.Profile()
profiler.enable()
from mesh_framework import MeshApplication
t1 = time.perf_counter()
cli = {"server.host": "127.0.0.1", "server.port": 0}
app = MeshApplication.load("bench_agent", cli=cli, config=sys.argv[1])
t2 = time.perf_counter()
asgi = app.build()
import uvicorn, uvicorn.protocols.http.h11_impl, uvicorn.lifespan.on
t3 = time.perf_counter()
profiler.disable()
print(f"import mesh_framework {t1 - t0:.3f} s, load {t2 - t1:.3f} s, build {t3 - t2:.3f} s (under cProfile)")
pstats.Stats(profiler).strip_dirs().sort_stats("cumulative").print_stats(int(sys.argv[2]))
"""


def cmd_startup(top: int, mode: str) -> None:
    env = server_env(mode)
    timing = (
        "import time; t=time.perf_counter(); import mesh_framework; print(f'{time.perf_counter()-t:.3f}')"
    )
    for _ in range(2):  # the first run fills the bytecode cache in "pyc" mode
        plain = subprocess.run(
            [PYTHON, "-c", timing],
            cwd=BENCH_DIR,
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
            env=env,
        )
    print(f"[{mode}] import mesh_framework (no profiler): {plain.stdout.strip()} s")
    done = subprocess.run(
        [PYTHON, "-c", STARTUP_SNIPPET, str(AGENT_CONFIG), str(top)],
        cwd=BENCH_DIR,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env=env,
    )
    print(done.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    calls = sub.add_parser("calls")
    calls.add_argument("-n", type=int, default=5000)
    calls.add_argument("--rounds", type=int, default=3, help="rounds, every path once per round (best)")
    prof = sub.add_parser("profile")
    prof.add_argument("path", choices=PATHS)
    prof.add_argument("-n", type=int, default=5000)
    prof.add_argument("--top", type=int, default=25)
    start = sub.add_parser("startup")
    start.add_argument("--top", type=int, default=30)
    start.add_argument(
        "--mode",
        choices=("pyc", "env"),
        default="pyc",
        help="pyc: with a bytecode cache (default); env: the environment as is",
    )
    args = parser.parse_args()
    if args.command == "calls":
        asyncio.run(cmd_calls(args.n, args.rounds))
    elif args.command == "profile":
        asyncio.run(cmd_profile(args.path, args.n, args.top))
    else:
        cmd_startup(args.top, args.mode)
    return 0


if __name__ == "__main__":
    sys.exit(main())
