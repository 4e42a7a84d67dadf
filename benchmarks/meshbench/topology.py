"""Phase `topology`: the consumer alone (dependency missing: its first answers), then provider start ->
consumer's first successful call (polled every 20 ms) and graceful stop -> unavailable, N runs; crashes."""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path
from typing import Any

from processes import Proc, display, log

from tests.interop import mcp_mesh as mm

from .agents import (
    MESH_REGISTRY_DEFAULTS,
    TOOL,
    registered_after_exec,
    spawn_mesh_agent,
    spawn_our_agent,
    start_our_registry,
    wait_mesh_agent,
    wait_our_agent,
)
from .calls import poll_until
from .client import McpClient
from .crash import crash_tests


def phase_topology(
    side: str, args: argparse.Namespace, tmp: Path, *, interval: float | None, crash: bool
) -> dict[str, Any]:
    label = f"{side}" + (f" interval {interval:g}s" if interval is not None else "")
    log(f"topology: {label}")
    procs: list[Proc] = []
    registry_cm: Any = None
    ours = side == "ours"
    result: dict[str, Any] = {"side": side, "heartbeat_interval_s": interval if interval is not None else 5.0}
    try:
        if ours:
            registry, url = start_our_registry(tmp)
            procs.append(registry)
            consumer = spawn_our_agent("bench_calc", url, tmp, interval=interval)
            procs.append(consumer)
            wait_our_agent(consumer, url)
        else:
            registry_cm = mm.run_mesh_registry(tmp / f"registry-topology-{side}", env=MESH_REGISTRY_DEFAULTS)
            url = registry_cm.__enter__().url
            consumer = spawn_mesh_agent("calc_consumer.py", url, tmp, nodelay=False)
            procs.append(consumer)
            wait_mesh_agent(consumer, url, "mesh-calc", set())
        result["registry_url_kind"] = "ours" if ours else "mcp-mesh-registry"
        assert consumer.port is not None
        client = McpClient(consumer.port, TOOL[side], timeout=60)

        def start_provider() -> Proc:
            if ours:
                return spawn_our_agent("bench_adder", url, tmp, interval=interval)
            return spawn_mesh_agent("adder.py", url, tmp, nodelay=False)

        # Dependency missing: the consumer's first answers.
        first = client.call(1, 1, timeout=60)
        second = client.call(1, 1, timeout=60)
        result["missing_dependency"] = {
            "first_call": {
                "kind": first.kind,
                "latency_ms": round(first.latency * 1000, 1),
                "text": first.text,
            },
            "second_call": {
                "kind": second.kind,
                "latency_ms": round(second.latency * 1000, 1),
                "text": second.text,
            },
        }
        log(f"  missing dependency: first call {first.kind} in {first.latency * 1000:.0f} ms")
        poll_until(client, {"unavailable"}, 60, interval=0.05, proc=consumer)

        # Provider start -> consumer's first successful call.
        runs = []
        for run in range(args.runs):
            provider = start_provider()
            procs.append(provider)
            t_done, _, calls = poll_until(client, {"ok"}, 60, interval=0.02, proc=provider)
            start_to_ok = t_done - provider.t_exec
            registered = registered_after_exec(url, provider, "bench-adder" if ours else "mesh-adder")
            t_stop = time.perf_counter()
            provider.stop()
            t_degraded, _, _ = poll_until(client, {"unavailable"}, 60, interval=0.02)
            runs.append(
                {
                    "start_to_ok_s": round(start_to_ok, 3),
                    "polls": calls,
                    "exec_to_registered_s": registered,
                    "graceful_stop_to_unavailable_s": round(t_degraded - t_stop, 3),
                }
            )
            log(f"  run {run}: provider start -> ok {start_to_ok:.3f} s")
        result["provider_start"] = {
            "runs": runs,
            "median_s": round(statistics.median(r["start_to_ok_s"] for r in runs), 3),
            "graceful_stop_median_s": round(
                statistics.median(r["graceful_stop_to_unavailable_s"] for r in runs), 3
            ),
            "exec_to_registered_median_s": round(
                statistics.median(
                    r["exec_to_registered_s"] for r in runs if r["exec_to_registered_s"] is not None
                ),
                3,
            )
            if any(r["exec_to_registered_s"] is not None for r in runs)
            else None,
        }
        if crash:
            result["crash"] = crash_tests(side, client, url, start_provider, procs, args)
        client.close()
        result["commands"] = {p.label: display(p.argv) for p in procs[:3]}
        return result
    finally:
        for proc in reversed(procs):
            proc.stop()
        if registry_cm is not None:
            registry_cm.__exit__(None, None, None)
