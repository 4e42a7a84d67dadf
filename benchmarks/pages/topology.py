"""The "Instant topology" section, from topology.json (topology_bench.py)."""

from __future__ import annotations

from typing import Any

from . import goals
from .text import X, count, fmt, missing, run_lines, table

__all__ = ["topology_section", "topology_values"]


def topology_values(data: dict[str, Any]) -> dict[str, float | None] | None:
    """Ours with the push stream (the default): start → first success (s) and DOWN → switched (ms)."""
    push = next((r for r in data["results"] if r["side"] == "push"), None)
    if push is None:
        return None
    return {"start_s": push["start"]["start_to_ok_median_s"], "switch_ms": push["switch"]["median_ms"]}


def topology_section(data: dict[str, Any] | None) -> list[str]:
    lines = ["## Instant topology (`benchmarks/topology_bench.py`)", ""]
    if data is None:
        return [*lines, *missing("instant topology", ".venv/bin/python benchmarks/topology_bench.py"), ""]
    sides = {r["side"]: r for r in data["results"]}
    lines += [*run_lines(data["run"]), ""]
    lines += [
        "Every side has its own registry and agents, all running at once; within each measure the sides take "
        f"turns run by run (the order rotating), {count(data['runs'], 'run')} each. Start → first success: "
        "the "
        "consumer "
        "runs alone and has been called once (dependency missing); the provider process is started and the "
        "consumer is called every 20 ms until it answers with the provider's name. DOWN → switched: two "
        "providers are up and the consumer uses one; the registry is told that one is gone (`DELETE "
        "/agents/ID`: what a graceful stop sends and what a DOWN health verdict does to the store) while its "
        "process keeps serving; the consumer is called every 10 ms until it answers with the other provider "
        f"(bounded: {data['window_s']:g} s).",
        "",
    ]
    values = topology_values(data)
    if values is not None:
        lines += [
            f"* {goals.PROVIDER_START.measure}, ours (push stream): **{fmt(values['start_s'], 3, ' s')}**, "
            f"target {goals.PROVIDER_START.text()}: {goals.PROVIDER_START.verdict(values['start_s'])}",
            f"* {goals.SWITCH.measure}, ours (push stream): **{fmt(values['switch_ms'], 1, ' ms')}**, target "
            f"{goals.SWITCH.text()}: {goals.SWITCH.verdict(values['switch_ms'])}",
            "",
        ]
    base = sides["push"]["switch"]["median_ms"] if "push" in sides else None
    rows = []
    for row in sides.values():
        start, switch = row["start"], row["switch"]
        rows.append(
            [
                row["label"],
                fmt(start["start_to_ok_median_s"], 3),
                fmt(start["exec_to_registered_median_s"], 3),
                fmt(start["registered_to_ok_median_ms"], 1),
                fmt(start["stop_to_unavailable_median_s"], 3),
                fmt(switch["median_ms"], 1),
                f"{switch['not_switched']} of {len(switch['runs'])}",
                f"{switch['median_ms'] / base:.1f}" if base and switch["median_ms"] is not None else "-",
            ]
        )
    header = [
        "side",
        "start → first success, median s",
        "exec → registered s",
        "registered → success ms",
        "SIGTERM → 'unavailable' s",
        "DOWN → switched, median ms",
        "not switched in the window",
        f"switch, {X} push's",
    ]
    lines += [*table(header, rows), ""]
    lines += [
        "The consumer left alone while the provider starts (no call wakes its heartbeat); the moment the "
        "registry lists the provider, one call, then calls every 10 ms until one succeeds:",
        "",
    ]
    rows = [
        [
            row["label"],
            f"{row['listed']['first_call_ok']} of {len(row['listed']['runs'])}",
            fmt(row["listed"]["listed_to_ok_median_ms"], 1),
        ]
        for row in sides.values()
    ]
    lines += [*table(["side", "that first call succeeded", "listed → first success, median ms"], rows), ""]
    push = sides.get("push")
    if push:
        start = push["start"]
        lines += [
            "Start → first success is the provider's own start-up (exec → registered, "
            f"{fmt(start['exec_to_registered_median_s'], 3)} s median here) plus the consumer's share "
            "(registered "
            f"→ success, {fmt(start['registered_to_ok_median_ms'], 1)} ms): the push stream changes the "
            "consumer's share, the provider's start-up is what remains.",
            "",
        ]
    lines += ["Per run:", ""]
    for name, row in sides.items():
        starts = ", ".join(fmt(r["start_to_ok_s"], 3) for r in row["start"]["runs"])
        switches = ", ".join(fmt(r["down_to_switched_ms"], 1) for r in row["switch"]["runs"])
        lines.append(f"* {name}: start → success s {starts}; DOWN → switched ms {switches}")
    lines += ["", "Processes (from the repository root; agents from `benchmarks/topology_agents/`):", ""]
    for name, row in sides.items():
        lines += [f"* {name}, {label}: `{command}`" for label, command in row["commands"].items()]
    return [*lines, ""]
