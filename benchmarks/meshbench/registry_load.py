"""Phase `registry`: the registries alone under a simulated fleet of heartbeats (distinct agent ids, half
providers, half consumers, payloads like MCP Mesh 3.7's): full POSTs/s, then HEADs/s, CPU per request; the
sides' registries run at once and every load runs on each in turn."""

from __future__ import annotations

import argparse
import copy
import json
import time
from pathlib import Path
from typing import Any

from _common import cpu_seconds, rss_mib
from processes import Proc, display, log

from tests.interop import mcp_mesh as mm

from .agents import AGENTS_DIR, MESH_REGISTRY_DEFAULTS, list_agents, start_our_registry
from .load import autocannon
from .measure import OtherLoad

PAYLOADS_DIR = AGENTS_DIR / "payloads"


def fleet(n: int, port_base: int = 20000) -> tuple[list[str], list[str]]:
    """Heartbeat bodies of n agents (distinct ids, half providers, half consumers) and their ids."""
    provider = json.loads((PAYLOADS_DIR / "provider_heartbeat.json").read_text())
    consumer = json.loads((PAYLOADS_DIR / "consumer_heartbeat.json").read_text())
    bodies, ids = [], []
    for i in range(n):
        template = provider if i % 2 == 0 else consumer
        body = copy.deepcopy(template)
        kind = "prov" if i % 2 == 0 else "cons"
        body["agent_id"] = f"fleet-{kind}-{i:05d}"
        body["name"] = f"fleet-{kind}"
        body["http_port"] = port_base + i  # nothing listens there: the registry never probes agents
        bodies.append(json.dumps(body, separators=(",", ":")))
        ids.append(body["agent_id"])
    return bodies, ids


def phase_registry(sides: tuple[str, ...], args: argparse.Namespace, tmp: Path, size: int) -> dict[str, Any]:
    """Every side's registry runs at once; each registers the fleet, then every load runs on each side in
    turn (the order rotating from load to load)."""
    log(f"registry: {', '.join(sides)}, fleet {size}")
    procs: list[Proc] = []
    managers: list[Any] = []
    bodies, ids = fleet(size)
    try:
        started: dict[str, tuple[str, int, str]] = {}  # side -> (url, pid, command)
        for side in sides:
            if side == "ours":
                registry, url = start_our_registry(tmp)
                procs.append(registry)
                started[side] = (url, registry.pid, display(registry.argv))
            else:
                manager = mm.run_mesh_registry(tmp / f"registry-load-{size}", env=MESH_REGISTRY_DEFAULTS)
                managers.append(manager)
                mesh_registry = manager.__enter__()
                assert mesh_registry.pid is not None
                command = (
                    "HOST=127.0.0.1 PORT=<free> DATABASE_URL=<tmp>/registry.db HEALTH_CHECK_INTERVAL=10 "
                    "DEFAULT_TIMEOUT_THRESHOLD=20 .tools/mcpmesh/.../bin/mcp-mesh-registry"
                )
                started[side] = (mesh_registry.url, mesh_registry.pid, command)
        results: dict[str, dict[str, Any]] = {}
        rss_registered: dict[str, float] = {}
        for side, (url, pid, command) in started.items():
            results[side] = {
                "side": side,
                "command": command,
                "fleet": size,
                **register(url, bodies, args, tmp),
            }
            rss_registered[side] = rss_mib(pid)
        loads = {
            "post": ("post", {"bodies": bodies}),  # the whole fleet, half providers, half consumers
            "post_providers": ("post", {"bodies": bodies[0::2]}),  # the providers' bodies only
            "head": ("head", {"ids": ids}),
        }
        for turn, (name, (kind, payload)) in enumerate(loads.items()):
            for side in sides[turn % len(sides) :] + sides[: turn % len(sides)]:
                url, pid, _ = started[side]
                measured = results[side][name] = one_load(url, pid, kind, payload, args, tmp)
                log(f"  {side} {name}: {measured['per_s']} /s, status {measured['status']}")
        for side, (_, pid, _) in started.items():
            results[side]["rss_mib"] = {
                "idle_after_register": round(rss_registered[side], 1),
                "after_load": round(rss_mib(pid), 1),
            }
        return results
    finally:
        for proc in reversed(procs):
            proc.stop()
        for manager in reversed(managers):
            manager.__exit__(None, None, None)


def _common(url: str, args: argparse.Namespace) -> dict[str, Any]:
    return {
        "url": url,
        "connections": args.registry_connections,
        "timeout": 10,
        "headers": {"content-type": "application/json"},
    }


def register(url: str, bodies: list[str], args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    """The whole fleet registers once (every body once, cycled by a shared counter)."""
    t0 = time.perf_counter()
    reg = autocannon(
        {
            **_common(url, args),
            "connections": min(len(bodies), args.registry_connections),
            "kind": "post",
            "bodies": bodies,
            "duration": 60,
            "max_requests": len(bodies),
        },
        tmp,
        budget=120,
    )
    register_s = time.perf_counter() - t0
    listed = list_agents(url)
    return {
        "registered": sum(1 for a in listed if str(a.get("id", "")).startswith("fleet-")),
        "register_pass_s": round(register_s, 2),
        "register_pass_status": reg["statusCodeStats"],
    }


def one_load(
    url: str, pid: int, kind: str, payload: dict[str, Any], args: argparse.Namespace, tmp: Path
) -> dict[str, Any]:
    cpu0 = cpu_seconds(pid)
    other = OtherLoad([pid])
    t0 = time.perf_counter()
    res = autocannon(
        {
            **_common(url, args),
            **payload,
            "kind": kind,
            "duration": args.registry_duration,
            "max_requests": args.registry_cap,
        },
        tmp,
        budget=args.registry_duration + 60,
    )
    elapsed = time.perf_counter() - t0
    cpu = cpu_seconds(pid) - cpu0
    total = int(res["requests_total"])
    return {
        "load_generator": "autocannon (mesh_load.js)"
        if kind == "post"
        else "node http, keep-alive loops (mesh_load.js)",
        "requests": total,
        "per_s": round(total / float(res["duration_s"]), 1),
        "p50_ms": res["latency_ms"]["p50"],
        "p99_ms": res["latency_ms"]["p99"],
        "status": {code: stat["count"] for code, stat in res["statusCodeStats"].items()},
        "errors": res["errors"],
        "timeouts": res["timeouts"],
        "registry_cpu_util": round(cpu / elapsed, 2),
        "registry_cpu_us_per_req": round(cpu / max(total, 1) * 1e6, 1),
        "loadgen_cpu_util": round(float(res["loadgen_cpu_s"]) / elapsed, 2),
        "other_cores": other.cores(float(res["loadgen_cpu_s"])),
    }
