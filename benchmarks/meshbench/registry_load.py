"""Phase `registry`: the registry alone under a simulated fleet of heartbeats (distinct agent ids, half
providers, half consumers, payloads like MCP Mesh 3.7's): full POSTs/s, then HEADs/s, CPU per request."""

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


def phase_registry(side: str, args: argparse.Namespace, tmp: Path, size: int) -> dict[str, Any]:
    log(f"registry: {side}, fleet {size}")
    procs: list[Proc] = []
    registry_cm: Any = None
    try:
        if side == "ours":
            registry, url = start_our_registry(tmp)
            procs.append(registry)
            pid = registry.pid
            command = display(registry.argv)
        else:
            registry_cm = mm.run_mesh_registry(tmp / f"registry-load-{size}", env=MESH_REGISTRY_DEFAULTS)
            mesh_registry = registry_cm.__enter__()
            url, pid = mesh_registry.url, mesh_registry.pid
            command = (
                "HOST=127.0.0.1 PORT=<free> DATABASE_URL=<tmp>/registry.db HEALTH_CHECK_INTERVAL=10 "
                "DEFAULT_TIMEOUT_THRESHOLD=20 .tools/mcpmesh/.../bin/mcp-mesh-registry"
            )
        assert pid is not None
        bodies, ids = fleet(size)
        common = {
            "url": url,
            "connections": args.registry_connections,
            "timeout": 10,
            "headers": {"content-type": "application/json"},
        }
        # Register the whole fleet once (every body once, cycled by a shared counter).
        t0 = time.perf_counter()
        reg = autocannon(
            {
                **common,
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
        result: dict[str, Any] = {
            "side": side,
            "command": command,
            "fleet": size,
            "registered": sum(1 for a in listed if str(a.get("id", "")).startswith("fleet-")),
            "register_pass_s": round(register_s, 2),
            "register_pass_status": reg["statusCodeStats"],
        }
        rss_registered = rss_mib(pid)
        loads = {
            "post": ("post", {"bodies": bodies}),  # the whole fleet, half providers, half consumers
            "post_providers": ("post", {"bodies": bodies[0::2]}),  # the providers' bodies only
            "head": ("head", {"ids": ids}),
        }
        for name, (kind, payload) in loads.items():
            cpu0 = cpu_seconds(pid)
            other = OtherLoad([pid])
            t0 = time.perf_counter()
            res = autocannon(
                {
                    **common,
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
            result[name] = {
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
            log(
                f"  {name}: {result[name]['per_s']} /s, registry CPU {result[name]['registry_cpu_util']}, "
                f"loadgen CPU {result[name]['loadgen_cpu_util']}, status {result[name]['status']}"
            )
        result["rss_mib"] = {
            "idle_after_register": round(rss_registered, 1),
            "after_load": round(rss_mib(pid), 1),
        }
        return result
    finally:
        for proc in reversed(procs):
            proc.stop()
        if registry_cm is not None:
            registry_cm.__exit__(None, None, None)
