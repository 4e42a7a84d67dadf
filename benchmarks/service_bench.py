"""A service-method call beside the same call through a plain `McpMeshTool`, interleaved.

Both sides call the same provider tool (`media.caption`, answering a Caption model) through the same proxy:
the plain side `await caption(text=...)` on the proxy, the service side `await media.caption(text=...)` on
the object a `@mesh_service` parameter receives (which also validates the answer into a Caption). Two
settings:

  http        the provider is another agent process (benchmarks/service_agent), called over HTTP
  in-process  the provider tool is served by this process (the proxy a self-dependency gets), no HTTP:
              the service object's own cost shows most here

Each round runs a batch of calls on each side, the order alternating between rounds; the figures are the
medians over rounds of the mean time and CPU per call, and of each round's service/plain ratio.

Usage: .venv/bin/python benchmarks/service_bench.py [--rounds 20] [--calls 2000] [--http-calls 300] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))

from _common import HOST, PYTHON, Run, display_command, free_port, save_results  # noqa: E402
from processes import Proc, clean_env, http_status, log, wait_for  # noqa: E402
from service_agent import Caption  # noqa: E402

from mesh_framework import MeshApplication, mesh_service, selector  # noqa: E402
from mesh_framework.config.settings import MeshSettings  # noqa: E402
from mesh_framework.injectables import McpMeshTool  # noqa: E402
from mesh_framework.mesh.proxy import InProcessMcpMeshTool, Provider  # noqa: E402
from mesh_framework.mesh.proxy_factory import McpMeshToolProxyFactory  # noqa: E402
from mesh_framework.services import analyze_service, implement  # noqa: E402

AGENT_CONFIG = BENCH_DIR / "service_agent" / "config"


@mesh_service
class Media(Protocol):
    @selector("media.caption", required=True)
    async def caption(self, text: str) -> Caption: ...


Call = Callable[[], Awaitable[Any]]


async def _batch(call: Call, calls: int) -> tuple[float, float]:
    """Mean wall and CPU microseconds per call over `calls` sequential calls."""
    wall, cpu = time.perf_counter_ns(), time.process_time_ns()
    for _ in range(calls):
        await call()
    return (time.perf_counter_ns() - wall) / calls / 1000, (time.process_time_ns() - cpu) / calls / 1000


async def compare(proxy: McpMeshTool, rounds: int, calls: int) -> dict[str, Any]:
    media: Media = implement(analyze_service(Media), [proxy], 0)

    async def plain() -> Any:
        return await proxy(text="a cat")

    async def service() -> Any:
        return await media.caption(text="a cat")

    assert isinstance(await service(), Caption) and (await plain())["text"] == "a cat"
    await _batch(plain, calls // 4 or 1)  # warm both paths (connections, caches)
    await _batch(service, calls // 4 or 1)
    sides: dict[str, list[tuple[float, float]]] = {"plain": [], "service": []}
    for round_ in range(rounds):
        order = ("plain", "service") if round_ % 2 == 0 else ("service", "plain")
        for side in order:
            sides[side].append(await _batch(plain if side == "plain" else service, calls))
    ratios = [s[0] / p[0] for p, s in zip(sides["plain"], sides["service"], strict=True)]
    cpu_ratios = [s[1] / p[1] for p, s in zip(sides["plain"], sides["service"], strict=True) if p[1]]
    return {
        "rounds": rounds,
        "calls_per_round": calls,
        "plain_us": statistics.median(w for w, _ in sides["plain"]),
        "service_us": statistics.median(w for w, _ in sides["service"]),
        "plain_cpu_us": statistics.median(c for _, c in sides["plain"]),
        "service_cpu_us": statistics.median(c for _, c in sides["service"]),
        "ratio": statistics.median(ratios),
        "cpu_ratio": statistics.median(cpu_ratios) if cpu_ratios else None,
        "round_ratios": [round(r, 4) for r in ratios],
    }


async def over_http(endpoint: str, rounds: int, calls: int) -> dict[str, Any]:
    factory = McpMeshToolProxyFactory(MeshSettings())
    proxy = factory.proxy_for(
        "media.caption", Provider(agent_id="service-bench", endpoint=endpoint, function_name="caption")
    )
    try:
        return await compare(proxy, rounds, calls)
    finally:
        await factory.http.aclose()


async def in_process(rounds: int, calls: int) -> dict[str, Any]:
    app = MeshApplication.load(
        "service_agent", cli={"logging.level": "WARNING"}, environ={}, config=AGENT_CONFIG
    )
    app.build()
    proxy = InProcessMcpMeshTool(
        capability="media.caption",
        function_name="caption",
        registry=app.container.tools(),
        agent_id="local",
        endpoint="local",
    )
    return await compare(proxy, rounds, calls)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=20, help="rounds per setting (default 20)")
    parser.add_argument("--calls", type=int, default=2000, help="in-process calls per side and round")
    parser.add_argument("--http-calls", type=int, default=300, help="HTTP calls per side and round")
    parser.add_argument("--quick", action="store_true", help="10 rounds, 1000 and 100 calls")
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.calls, args.http_calls = 10, 1000, 100
    run = Run(short=args.quick or args.rounds < 20)
    port = free_port()
    argv = [PYTHON, "-m", "mesh_framework.cli", "run", "service_agent", "--host", HOST, "--port", str(port)]
    argv += ["--config", str(AGENT_CONFIG)]
    provider = Proc("service-agent", argv, env=clean_env({}), cwd=BENCH_DIR, port=port)
    endpoint = f"http://{HOST}:{port}"
    try:
        wait_for(
            lambda: http_status(endpoint + "/health") == 200, 30, "the provider answers", procs=[provider]
        )
        log("over HTTP")
        http = asyncio.run(over_http(endpoint, args.rounds, args.http_calls))
    finally:
        provider.stop()
    log("in process")
    local = asyncio.run(in_process(args.rounds, args.calls))
    for name, row in (("http", http), ("in-process", local)):
        plain, service = row["plain_us"], row["service_us"]
        log(f"{name}: plain {plain:.1f} µs, service {service:.1f} µs, {row['ratio']:.3f} x")
    save_results(
        "service",
        run,
        {
            "commands": {"provider": display_command(argv)},
            "args": {"rounds": args.rounds, "calls": args.calls, "http_calls": args.http_calls},
            "settings": {"http": http, "in-process": local},
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
