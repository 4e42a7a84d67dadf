"""The streaming section, from stream.json (stream_bench.py)."""

from __future__ import annotations

from typing import Any

from .goals import STREAM_CHUNK, STREAM_FIRST
from .text import count, fmt, missing, ratio, run_lines, table

__all__ = ["stream_section", "stream_values"]


def stream_values(res: dict[str, Any]) -> dict[str, float] | None:
    """The figures the targets are judged on: side (a), the two hops, medians in ms."""
    ours = res.get("results", {}).get("ours")
    if ours is None:
        return None
    return {"first_ms": ours["first_chunk_ms"]["median"], "chunk_ms": ours["per_chunk_ms"]["median"]}


def stream_section(res: dict[str, Any] | None) -> list[str]:
    lines = ["## Streaming: a chat answer through a route (`benchmarks/stream_bench.py`)", ""]
    if res is None:
        return [*lines, *missing("streaming", ".venv/bin/python benchmarks/stream_bench.py"), ""]
    lines += [*run_lines(res["run"]), ""]
    streams = res["results"][res["sides"][0]]["memory"]["streams"]
    lines += [
        "A browser's chat request as a client makes it: `GET /chat?question=...` on a route agent, whose "
        "route streams a chat tool of another agent, whose model is a fake OpenAI server streaming its "
        "answer (the benchmark's process, which notes when it writes each delta). Each call: the model "
        "writes one delta and waits until the client holds it (**first chunk**: the client's time minus the "
        f"model's write), then {res['burst']} deltas back to back (**per chunk**: the time between the "
        "client holding the burst's first chunk and its last, divided by the burst less one: the cost of "
        "one more chunk through every process once the pipe is full). "
        f"{count(res['rounds'], 'round')} of {res['calls']} calls per side, the sides taking turns, "
        f"after {res['warmup']} warm-up calls; medians, p90 and minimum over the calls. CPU per chunk: "
        "the side's processes' utime+stime over its calls, divided by the chunks. Memory: "
        f"{streams} streams opened at once and held by the model after their first delta; the growth of the "
        "side's processes' RSS, per stream.",
        "",
    ]
    lines += [f"* {entry['label']}" for entry in res["labels"].values()]
    lines += [""]
    rows = []
    for key in res["sides"]:
        f = res["results"][key]
        first, chunk, memory = f["first_chunk_ms"], f["per_chunk_ms"], f["memory"]
        rows.append(
            [
                res["labels"][key]["short"],
                f"{fmt(first['median'], 2)} / {fmt(first['p90'], 2)} / {fmt(first['min'], 2)}",
                f"{fmt(chunk['median'], 3)} / {fmt(chunk['p90'], 3)} / {fmt(chunk['min'], 3)}",
                fmt(f["cpu_per_chunk_ms"], 3),
                fmt(memory["per_stream_kib"], 0),
            ]
        )
    lines += table(
        [
            "side",
            "first chunk, ms (median / p90 / min)",
            "per chunk, ms (median / p90 / min)",
            "CPU per chunk, ms",
            "KiB per open stream",
        ],
        rows,
    )
    values = stream_values(res)
    if values is not None:
        lines += [
            "",
            f"* {STREAM_FIRST.measure}, (a): **{fmt(values['first_ms'], 2, ' ms')}**, target "
            f"{STREAM_FIRST.text()}: {STREAM_FIRST.verdict(values['first_ms'])}.",
            f"* {STREAM_CHUNK.measure}, (a): **{fmt(values['chunk_ms'], 3, ' ms')}**, target "
            f"{STREAM_CHUNK.text()}: {STREAM_CHUNK.verdict(values['chunk_ms'])}.",
        ]
    results = res["results"]
    if "ours-provider" in results and "mcp-mesh" in results:
        ours, theirs = results["ours-provider"], results["mcp-mesh"]
        lines += [
            "* Same shape (route → chat tool → provider agent → model), MCP Mesh / ours: first chunk "
            f"{ratio(theirs['first_chunk_ms']['median'], ours['first_chunk_ms']['median'])}, per chunk "
            f"{ratio(theirs['per_chunk_ms']['median'], ours['per_chunk_ms']['median'])}, CPU per chunk "
            f"{ratio(theirs['cpu_per_chunk_ms'], ours['cpu_per_chunk_ms'])}, memory per open stream "
            f"{ratio(theirs['memory']['per_stream_kib'], ours['memory']['per_stream_kib'])}.",
        ]
    return [*lines, ""]
