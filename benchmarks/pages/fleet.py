"""The fleet section, from fleet.json (fleet/fleet_bench.py)."""

from __future__ import annotations

from typing import Any

from .text import count, fmt, missing, run_lines, table

__all__ = ["fleet_section"]

HEADING = "## Fleet simulation: embedded registry vs MCP Mesh's registry on PostgreSQL"


def fleet_section(res: dict[str, Any] | None) -> list[str]:
    lines = [HEADING, ""]
    if res is None:
        return [*lines, *missing("the fleet", ".venv/bin/python benchmarks/fleet/fleet_bench.py"), ""]
    ours, mcp = res["sides"]["ours"], res["sides"]["mcp-pg"]
    cfg, fleet = res["settings"], res["fleet"]
    lines += [*run_lines(res["run"]), ""]
    lines += [
        f"Fleet: {fleet['providers'] + fleet['consumers']} simulated agents ({fleet['providers']} providers "
        "of "
        f"svc-0..49, {fleet['consumers']} consumers each needing one svc-N and `rare`), heartbeat interval "
        f"{cfg['interval']:g} s, plus real agents (starter_app.calculator and starter_app). Ours: "
        f"{ours['command']}. MCP Mesh: {mcp['command']}. Both registries run at once; every phase runs "
        f"{count(cfg['rounds'], 'round')}, the sides taking turns (the order alternating), the median round "
        "shown. "
        "Load "
        f"generator: autocannon (benchmarks/mesh_load.js, {cfg['connections']} connections, "
        f"{cfg['duration']:g} s "
        "per load) for the POST and HEAD rates; the fleet's own pace (HEAD every interval, POST on 202) from "
        "Python asyncio. The topology rows include the lag of that simulator (the same for both sides); the "
        "resolution rows do not (measured before the simulated heartbeats start).",
        "",
    ]
    rows = [
        ("register the fleet (1 POST each), s", ours["register_pass_s"], mcp["register_pass_s"], "lower"),
        ("full POST /heartbeat per s", ours["post"]["per_s"], mcp["post"]["per_s"], "higher"),
        ("HEAD /heartbeat per s", ours["head"]["per_s"], mcp["head"]["per_s"], "higher"),
        (
            "HEAD /heartbeat per s, MCP Mesh's load split over its two replicas",
            ours["head"]["per_s"],
            mcp.get("head_two_replicas", {}).get("per_s"),
            "higher",
        ),
        ("resolution (consumer POST) p50, ms", ours["resolve"]["p50_ms"], mcp["resolve"]["p50_ms"], "lower"),
        ("resolution p99, ms", ours["resolve"]["p99_ms"], mcp["resolve"]["p99_ms"], "lower"),
        (
            "topology change reaches all consumers (heartbeat only), max s",
            ours["topology"]["max_s"],
            mcp["topology"]["max_s"],
            "lower",
        ),
        (
            "topology change, p50 over consumers, s",
            ours["topology"]["p50_s"],
            mcp["topology"]["p50_s"],
            "lower",
        ),
        (
            "real agents: provider serving → consumer call ok, s",
            ours["real"]["after_provider_serving_s"],
            mcp["real"]["after_provider_serving_s"],
            "lower",
        ),
        (
            "registry process CPU under HEAD load, cores (PostgreSQL not counted)",
            ours["head"]["cpu_util"]["registry"],
            mcp["head"]["cpu_util"]["registry"],
            "lower",
        ),
        ("registry RSS with the fleet, MiB", ours["registry_rss_mib"], mcp["registry_rss_mib"], "lower"),
    ]
    table_rows = [
        [name, fmt(a, 2), fmt(b, 2), f"{a / b:.2f}" if a and b else "-", better]
        for name, a, b, better in rows
    ]
    header = ["measure", "embedded registry", "MCP Mesh on PostgreSQL", "ours / MCP Mesh", "better"]
    lines += [*table(header, table_rows), ""]
    per_round = "; ".join(
        f"{label}: ours {', '.join(f'{x:.0f}' for x in ours['rounds_per_s'][name])}, MCP Mesh "
        f"{', '.join(f'{x:.0f}' for x in mcp['rounds_per_s'][name])}"
        for name, label in (("post", "full POST"), ("head", "HEAD"))
    )
    lines += [
        f"Rates per round (requests/s): {per_round}.",
        "",
        f"Topology: consumers reached {ours['topology']['reached']}/{ours['topology']['consumers']} (ours), "
        f"{mcp['topology']['reached']}/{mcp['topology']['consumers']} (MCP Mesh) in every round; "
        "PostgreSQL's own "
        f"CPU under MCP Mesh's HEAD load: {fmt(mcp['head']['cpu_util'].get('postgres'), 2)} cores. Real "
        "agents "
        "of ours also follow the embedded registry's push stream; MCP Mesh's registry has none.",
        "",
        "**Limits of the embedded registry.** It is one Python process: every rate above is what one core of "
        "it gives, it keeps every agent in memory, and it cannot be replicated (two embedded registries "
        "share "
        "nothing). When it stops, agents keep calling each other with the topology they hold, and no change "
        "reaches them until it is back. Use MCP Mesh's registry on PostgreSQL with two or more replicas when "
        "the registry must survive a machine, when agents span machines, or when your fleet's heartbeat rate "
        "(agents / `registry.heartbeat_interval`) approaches the HEAD rate measured here for one embedded "
        "registry on your hardware. See [production.md](production.md).",
        "",
    ]
    return lines
