"""Phase `calc`: client -> consumer -> provider on every side at once (idle sides only heartbeat); sequential
latency in chunks and throughput rounds alternating between the sides; RSS before and after the load."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from processes import display, log, wait_for

from tests.interop import mcp_mesh as mm

from .agents import (
    MESH_REGISTRY_DEFAULTS,
    SIDES,
    TOOL,
    spawn_mesh_agent,
    spawn_our_agent,
    start_our_registry,
    wait_mesh_agent,
    wait_our_agent,
)
from .client import McpClient
from .load import throughput_run, throughput_summary
from .measure import latency_chunk, latency_summary, memory


def start_calc_stack(side: str, tmp: Path, stack: dict[str, Any]) -> None:
    """Registry, provider and consumer of one side; fills `stack` as it goes (a failure still stops all)."""
    stack["procs"] = procs = []
    if side == "ours":
        registry, url = start_our_registry(tmp)
        procs.append(registry)
        stack["registry_pid"] = registry.pid
        provider = spawn_our_agent("bench_adder", url, tmp)
        consumer = spawn_our_agent("bench_calc", url, tmp)
        procs += [provider, consumer]
        wait_our_agent(provider, url)
        wait_our_agent(consumer, url)
    else:
        stack["registry_cm"] = cm = mm.run_mesh_registry(tmp / f"registry-{side}", env=MESH_REGISTRY_DEFAULTS)
        mesh_registry = cm.__enter__()
        url = mesh_registry.url
        stack["registry_pid"] = mesh_registry.pid
        nodelay = side == "mcp-nodelay"
        provider = spawn_mesh_agent("adder.py", url, tmp, nodelay=nodelay)
        consumer = spawn_mesh_agent("calc_consumer.py", url, tmp, nodelay=nodelay)
        procs += [provider, consumer]
        wait_mesh_agent(provider, url, "mesh-adder", set())
        wait_mesh_agent(consumer, url, "mesh-calc", set())
    stack.update(provider=provider, consumer=consumer, url=url)


def stop_calc_stack(stack: dict[str, Any]) -> None:
    for proc in reversed(stack.get("procs", [])):
        proc.stop()
    if stack.get("registry_cm") is not None:
        stack["registry_cm"].__exit__(None, None, None)


def phase_calc(args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    """All sides run at once (idle ones only heartbeat); measurements alternate between them, the order
    rotating from chunk to chunk and round to round."""
    sides = [side for side in SIDES if side in args.sides.split(",")]
    stacks: dict[str, dict[str, Any]] = {side: {} for side in sides}
    clients: dict[str, McpClient] = {}
    results: dict[str, dict[str, Any]] = {}
    try:
        for side in sides:
            log(f"calc: starting {side}")
            start_calc_stack(side, tmp, stacks[side])
        for side in sides:
            st = stacks[side]
            consumer = st["consumer"]
            probe = McpClient(consumer.port, TOOL[side], timeout=30)
            first = wait_for(
                lambda probe=probe: (o := probe.call(2, 3)).kind == "ok" and o,
                60,
                f"{side} calc answers 5",
                interval=0.05,
                procs=[consumer],
            )
            probe.close()
            st["pids"] = {"consumer": consumer.pid, "provider": st["provider"].pid}
            results[side] = {
                "side": side,
                "label": SIDES[side],
                "first_ok_call_ms": round(first.latency * 1000, 2),
                "rss_mib": {
                    "serving": memory(
                        {"registry": st["registry_pid"], "provider": st["provider"], "consumer": consumer}
                    )
                },
                "commands": {p.label: display(p.argv) for p in st["procs"]},
            }
            clients[side] = McpClient(consumer.port, TOOL[side], timeout=10)
            for i in range(args.warmup_calls):
                out = clients[side].call(i, 1)
                if out.kind != "ok":
                    raise RuntimeError(f"{side}: warm-up call failed: {out.kind} {out.text}")
        # Sequential latency, in chunks alternating between the sides.
        chunk = max(1, args.calls // args.latency_chunks)
        chunks: dict[str, list[dict[str, Any]]] = {side: [] for side in sides}
        deadline = {side: time.perf_counter() + args.latency_max_s for side in sides}
        done = dict.fromkeys(sides, 0)
        turn = 0
        while any(done[s] < args.calls and time.perf_counter() < deadline[s] for s in sides):
            turn += 1
            for side in sides[turn % len(sides) :] + sides[: turn % len(sides)]:
                if done[side] >= args.calls or time.perf_counter() >= deadline[side]:
                    continue
                n = min(chunk, args.calls - done[side])
                c = latency_chunk(clients[side], n, stacks[side]["pids"], deadline[side])
                chunks[side].append(c)
                done[side] += len(c["lat"]) + sum(c["failures"].values())
        for side in sides:
            clients[side].close()
            results[side]["latency"] = latency_summary(chunks[side], args.calls)
            log(
                f"  {side}: latency p50 {results[side]['latency']['p50_ms']} ms, "
                f"{results[side]['latency']['calls_per_s']} calls/s"
            )
        # Throughput rounds, alternating.
        rounds: dict[str, list[dict[str, Any]]] = {side: [] for side in sides}
        for rnd in range(args.rounds):
            for side in sides[rnd % len(sides) :] + sides[: rnd % len(sides)]:
                st = stacks[side]
                rounds[side].append(
                    throughput_run(
                        st["consumer"].port,
                        TOOL[side],
                        {**st["pids"], "registry": st["registry_pid"]},
                        tmp,
                        connections=args.connections,
                        duration=args.duration,
                        warmup=args.load_warmup,
                        cap=args.max_requests,
                    )
                )
                log(
                    f"  {side}: round {rnd}: {rounds[side][-1]['calls_per_s']} calls/s "
                    f"(bad {rounds[side][-1]['bad']})"
                )
        for side in sides:
            st = stacks[side]
            results[side]["throughput"] = throughput_summary(rounds[side])
            results[side]["rss_mib"]["after_load"] = memory(
                {"registry": st["registry_pid"], "provider": st["provider"], "consumer": st["consumer"]}
            )
        return results
    finally:
        for client in clients.values():
            client.close()
        for side in reversed(sides):
            stop_calc_stack(stacks[side])
