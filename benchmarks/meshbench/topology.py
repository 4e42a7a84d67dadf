"""Phase `topology`: the consumer alone (dependency missing: its first answers), then provider start ->
consumer's first successful call (polled every 20 ms) and graceful stop -> unavailable, N runs taking turns
between the sides; crashes."""

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


class TopologySide:
    """One side of the phase: its registry and consumer, and how its provider starts."""

    def __init__(self, key: str, side: str, tmp: Path, interval: float | None) -> None:
        self.key, self.side, self.tmp, self.interval = key, side, tmp, interval
        self.ours = side == "ours"
        self.procs: list[Proc] = []
        self.registry_cm: Any = None
        self.result: dict[str, Any] = {
            "side": side,
            "heartbeat_interval_s": interval if interval is not None else 5.0,
            "registry_url_kind": "ours" if self.ours else "mcp-mesh-registry",
        }
        if self.ours:
            registry, self.url = start_our_registry(tmp)
            self.procs.append(registry)
            self.consumer = spawn_our_agent("bench_calc", self.url, tmp, interval=interval)
            self.procs.append(self.consumer)
            wait_our_agent(self.consumer, self.url)
        else:
            self.registry_cm = mm.run_mesh_registry(
                tmp / f"registry-topology-{key}", env=MESH_REGISTRY_DEFAULTS
            )
            self.url = self.registry_cm.__enter__().url
            self.consumer = spawn_mesh_agent("calc_consumer.py", self.url, tmp, nodelay=False)
            self.procs.append(self.consumer)
            wait_mesh_agent(self.consumer, self.url, "mesh-calc", set())
        assert self.consumer.port is not None
        self.client = McpClient(self.consumer.port, TOOL[side], timeout=60)

    def start_provider(self) -> Proc:
        if self.ours:
            return spawn_our_agent("bench_adder", self.url, self.tmp, interval=self.interval)
        return spawn_mesh_agent("adder.py", self.url, self.tmp, nodelay=False)

    def missing_dependency(self) -> None:
        """The consumer's first answers, no provider anywhere; then until it answers 'unavailable'."""
        first = self.client.call(1, 1, timeout=60)
        second = self.client.call(1, 1, timeout=60)
        self.result["missing_dependency"] = {
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
        log(f"  {self.key} missing dependency: first call {first.kind} in {first.latency * 1000:.0f} ms")
        poll_until(self.client, {"unavailable"}, 60, interval=0.05, proc=self.consumer)

    def provider_start_run(self, run: int) -> dict[str, Any]:
        """Provider start -> the consumer's first successful call; graceful stop -> 'unavailable'."""
        provider = self.start_provider()
        self.procs.append(provider)
        t_done, _, calls = poll_until(self.client, {"ok"}, 60, interval=0.02, proc=provider)
        start_to_ok = t_done - provider.t_exec
        registered = registered_after_exec(self.url, provider, "bench-adder" if self.ours else "mesh-adder")
        t_stop = time.perf_counter()
        provider.stop()
        t_degraded, _, _ = poll_until(self.client, {"unavailable"}, 60, interval=0.02)
        log(f"  {self.key} run {run}: provider start -> ok {start_to_ok:.3f} s")
        return {
            "start_to_ok_s": round(start_to_ok, 3),
            "polls": calls,
            "exec_to_registered_s": registered,
            "graceful_stop_to_unavailable_s": round(t_degraded - t_stop, 3),
        }

    def close(self) -> None:
        self.client.close()
        for proc in reversed(self.procs):
            proc.stop()
        if self.registry_cm is not None:
            self.registry_cm.__exit__(None, None, None)


def phase_topology(
    configs: dict[str, tuple[str, float | None, bool]], args: argparse.Namespace, tmp: Path
) -> dict[str, dict[str, Any]]:
    """`configs`: key -> (side, heartbeat interval or None for the default, crash tests or not). Every
    side's registry and consumer run at once; the provider-start runs take turns between the sides (the
    order rotating); the crash tests, which kill providers, run one side after the other."""
    log(f"topology: {', '.join(configs)}")
    sides: list[TopologySide] = []
    try:
        for key, (side, interval, _) in configs.items():
            sides.append(TopologySide(key, side, tmp, interval))
        for one in sides:
            one.missing_dependency()
        runs: dict[str, list[dict[str, Any]]] = {one.key: [] for one in sides}
        for run in range(args.runs):
            shift = run % len(sides)
            for one in sides[shift:] + sides[:shift]:
                runs[one.key].append(one.provider_start_run(run))
        for one in sides:
            rows = runs[one.key]
            registered = [r["exec_to_registered_s"] for r in rows if r["exec_to_registered_s"] is not None]
            one.result["provider_start"] = {
                "runs": rows,
                "median_s": round(statistics.median(r["start_to_ok_s"] for r in rows), 3),
                "graceful_stop_median_s": round(
                    statistics.median(r["graceful_stop_to_unavailable_s"] for r in rows), 3
                ),
                "exec_to_registered_median_s": round(statistics.median(registered), 3)
                if registered
                else None,
            }
        for one in sides:
            if configs[one.key][2]:
                one.result["crash"] = crash_tests(
                    one.side, one.client, one.url, one.start_provider, one.procs, args
                )
            one.result["commands"] = {p.label: display(p.argv) for p in one.procs[:3]}
        return {one.key: one.result for one in sides}
    finally:
        for one in reversed(sides):
            one.close()
