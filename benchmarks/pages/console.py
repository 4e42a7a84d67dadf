"""The console section, from console.json (console_bench.py)."""

from __future__ import annotations

from typing import Any

from .goals import CONSOLE, CONSOLE_PAINT
from .text import X, fmt, missing, run_lines, table

__all__ = ["console_section"]


def console_section(res: dict[str, Any] | None) -> list[str]:
    lines = ["## The console (`benchmarks/console_bench.py`)", ""]
    if res is None:
        return [*lines, *missing("the console", ".venv/bin/python benchmarks/console_bench.py"), ""]
    lines += [*run_lines(res["run"]), ""]
    times = res["us_per_call"]
    lines += [
        "What an agent that feeds the console adds to each `tools/call` it serves, wired as an agent wires "
        "it: the counters (read from the metrics' own), the trace decision, a span for each call traced "
        "(at most `tracing.console_traces_per_second` new traces a second, 10) and the push's own work (its "
        "JSON body, built once a second by the agent, here every "
        f"{res['chunk']} calls) counted per call. `console-traceparent`: every request continues a "
        "caller's sampled trace, so every call is traced (what a span costs). "
        f"The agent's ASGI app is called in process, {res['calls']} calls per variant and round, "
        f"the variants taking turns every {res['chunk']} calls; best of {res['rounds']} rounds, process CPU "
        "per call. `off` is what an agent runs when no registry gathers (MCP Mesh's registry answers the "
        "push 404).",
        "",
    ]
    lines += table(
        ["variant", "µs CPU per call", f"vs off ({X})"],
        [[name, fmt(value), fmt(value / times["off"], 2)] for name, value in times.items()],
    )
    share = res.get("share_of_http_call")
    percent = share * 100 if isinstance(share, int | float) else None
    lines += [
        "",
        f"Added: {fmt(res['added_us'])} µs per call; against the agent's CPU per `tools/call` over HTTP "
        f"({fmt(res.get('http_call_us'))} µs, server_cpu.json) that is {fmt(percent)} %. "
        f"Target {CONSOLE.text()}: {CONSOLE.verdict(percent)}.",
        "",
    ]
    memory = res["registry"]
    lines += [
        f"The registry at full retention with {memory['agents']} agents: {memory['series']} traffic series "
        f"(every 10 s bucket of the window filled), {memory['traces']} traces holding {memory['spans']} "
        f"spans. Python allocations of the console board: {fmt(memory['board_mib'])} MiB; the page's "
        f"document from it (every trace, the first poll): {fmt(memory['view_ms'])} ms, "
        f"{fmt(memory['view_kib'])} KiB.",
        "",
    ]
    paint = res.get("first_paint")
    if paint:
        lines += [
            f"First paint of `/ui` over loopback in Chromium, that registry serving: median "
            f"{fmt(paint['median_ms'])} ms of {paint['loads']} loads (slowest {fmt(paint['max_ms'])} ms). "
            f"Target {CONSOLE_PAINT.text()}: {CONSOLE_PAINT.verdict(paint['median_ms'])}.",
            "",
        ]
    return lines
