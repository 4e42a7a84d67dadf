"""The LLM section, from llm.json (llm_bench.py) and, when present, llm_breakdown.json (its --breakdown)."""

from __future__ import annotations

import statistics
from typing import Any

from . import goals
from .text import X, count, missing, run_lines, table

__all__ = ["llm_section", "llm_values"]

OURS = ("direct", "mesh-provider")
THEIRS = ("mcp-mesh", "mcp-mesh-nodelay")


def _ratio(results: dict[str, Any], num: str, den: str, name: str) -> float | None:
    a, b = results.get(num), results.get(den)
    if not a or not b or name not in a or name not in b or b[name] <= 0:
        return None
    return float(a[name] / b[name])


def llm_values(data: dict[str, Any]) -> dict[str, float]:
    """MCP Mesh (as shipped) end to end over ours, a call of one iteration (2 model turns, 1 mesh tool)."""
    results = data["results"]
    found = {}
    for ours in OURS:
        value = _ratio(results, "mcp-mesh", ours, "e2e_one_iteration_ms")
        if value is not None:
            found[ours] = value
    return found


def llm_section(data: dict[str, Any] | None, breakdown: dict[str, Any] | None) -> list[str]:
    lines = ["## LLM: a tool loop through the mesh (`benchmarks/llm_bench.py`)", ""]
    if data is None:
        return [*lines, *missing("the LLM benchmark", ".venv/bin/python benchmarks/llm_bench.py"), ""]
    k, results, sides = data["iterations"], data["results"], data["sides"]
    short = {key: data["labels"][key]["short"] for key in sides}
    lines += [*run_lines(data["run"]), ""]
    lines += [
        "The model of every side is the same scripted fake OpenAI server (tests/llm_fakes, a thread of the "
        "benchmark process, serving with TCP_NODELAY). One call of the consumer's tool makes the model ask "
        "for "
        f"`add` {k} times, one tool call per turn, then answer text ({k} iterations, {k + 1} model requests, "
        f"{k} `add` calls over the mesh); a call of one iteration is two model turns and one mesh tool call. "
        f"Framework time per iteration = (end-to-end time of the call - time inside the fake server) / {k}; "
        "the fake's time is the wall time of its HTTP parser plus its ASGI app, measured by wrapping it. "
        "Calls "
        f"are sequential over keep-alive connections; in each of {count(data['rounds'], 'round')} the sides "
        "take "
        "turns "
        f"call by call (the order rotating), {data['calls']} calls of {k} iterations, then {data['calls']} "
        "of "
        f"1 (marginal = the slope between them), after {count(data['warmup'], 'warm-up call')} per side. "
        "Agents' CPU "
        "= "
        "utime+stime of the side's consumer, provider and adder around its calls, per iteration. Every agent "
        "logs at WARNING; mcp-mesh sends `openai/*` models through its native adapter, the `openai` SDK.",
        "",
    ]
    if data.get("skip_sdk_transform"):
        lines += ["**What-if run**: every one of our agents skips the `openai` SDK's request transform.", ""]
    values = llm_values(data)
    for ours, value in values.items():
        lines.append(
            f"* {goals.LLM.measure}, {short['mcp-mesh']}/{short[ours]}: **{value:.2f} {X}** "
            f"({results['mcp-mesh']['e2e_one_iteration_ms']:.1f} ms against "
            f"{results[ours]['e2e_one_iteration_ms']:.1f} ms, medians), target {goals.LLM.text()}: "
            f"{goals.LLM.verdict(value)}"
        )
    if values:
        lines.append("")
    rows = []
    for key in sides:
        r = results[key]
        rows.append(
            [
                data["labels"][key]["label"],
                r["calls"],
                f"{r['e2e_one_iteration_ms']:.1f} ms" if "e2e_one_iteration_ms" in r else "-",
                f"{r['e2e_ms']:.1f} ms",
                f"{r['fake_ms_per_call']:.2f} ms ({r['fake_us_per_request']:.0f} µs/request)",
                f"**{r['per_iteration_ms']:.2f}** "
                f"({r['per_iteration_p10_ms']:.2f}-{r['per_iteration_p90_ms']:.2f})",
                f"{r['marginal_ms']:.2f}" if "marginal_ms" in r else "-",
                f"{r['agents_cpu_ms_per_iteration']:.2f}",
            ]
        )
    header = [
        "side",
        f"calls of {k}",
        "end to end, one iteration, median",
        f"end to end, {k} iterations, median",
        "fake server per call",
        "**framework ms per iteration**, median (p10-p90)",
        "marginal ms per iteration",
        "agents' CPU ms per iteration",
    ]
    lines += [*table(header, rows), "", "Agents' CPU ms per iteration, by agent:", ""]
    for key in sides:
        parts = [f"{role} {v:.2f}" for role, v in results[key]["cpu_ms_per_iteration_by_agent"].items()]
        lines.append(f"* {short[key]}: " + ", ".join(parts))
    pairs = [(t, o) for t in THEIRS for o in ("direct", "direct-no-transform", "mesh-provider")]
    pairs.append(("direct", "direct-no-transform"))
    pairs = [(a, b) for a, b in pairs if a in results and b in results]
    lines += [
        "",
        f"Ratios of the same run (one-iteration call end to end, framework time per iteration, {X}):",
        "",
    ]
    for num, den in pairs:
        figures = [_ratio(results, num, den, name) for name in ("e2e_one_iteration_ms", "per_iteration_ms")]
        shown = ", ".join("-" if v is None else f"{v:.2f}" for v in figures)
        per_round = [
            a / b for a, b in zip(results[num]["per_round_ms"], results[den]["per_round_ms"], strict=True)
        ]
        lines.append(
            f"* {short[num]}/{short[den]}: {shown}; per iteration within each round "
            + ", ".join(f"{v:.1f}" for v in per_round)
            + f" (median {statistics.median(per_round):.1f})"
        )
    lines += [
        "",
        "The fake server's own CPU (its thread, /proc/self/task, 10 ms ticks; a cross-check of the wall time "
        "subtracted): "
        + ", ".join(f"{short[key]} {results[key]['fake_thread_cpu_us_per_request']:.0f}" for key in sides)
        + " µs/request.",
        "",
    ]
    lines += _findings(data)
    if breakdown is not None:
        lines += _breakdown(breakdown)
    lines += ["Processes (all on 127.0.0.1; `<port>` a free port, `<fake>` the fake server's URL):", ""]
    lines += [f"* {role}: `{command}`" for role, command in data["commands"].items()]
    return [*lines, ""]


def _findings(data: dict[str, Any]) -> list[str]:
    results = data["results"]
    out = ["Findings (figures of this run):", ""]
    if "mcp-mesh" in results and "mcp-mesh-nodelay" in results:
        shipped, fixed = results["mcp-mesh"], results["mcp-mesh-nodelay"]
        out.append(
            f"* MCP Mesh's framework time per iteration is {shipped['per_iteration_ms']:.1f} ms as shipped "
            "and "
            f"{fixed['per_iteration_ms']:.1f} ms with TCP_NODELAY on its agents' sockets: as shipped, its "
            "answers wait for the client's delayed ACK."
        )
    if "direct" in results and "mesh-provider" in results:
        direct, provider = results["direct"], results["mesh-provider"]
        out.append(
            f"* Ours through a `@mesh_llm_provider` costs {provider['per_iteration_ms']:.2f} ms per "
            "iteration "
            f"against {direct['per_iteration_ms']:.2f} ms direct: the consumer asks the provider one turn at "
            "a "
            "time, one HTTP exchange more per iteration than the direct consumer's two (the model and `add`)."
        )
    if "direct" in results and "direct-no-transform" in results:
        value = _ratio(results, "direct", "direct-no-transform", "per_iteration_ms")
        out.append(
            f"* Skipping the `openai` SDK's request transform changes our direct side by {value:.2f} {X} per "
            "iteration (the adapter already posts the body through the SDK's `client.post`)."
        )
    return [*out, ""] if len(out) > 2 else []


def _breakdown(b: dict[str, Any]) -> list[str]:
    out = [
        "### Where one iteration's CPU goes (`benchmarks/llm_bench.py --breakdown`)",
        "",
        *run_lines(b["run"]),
        "",
        "In this process, no socket for the model (an in-memory transport): CPU per model request through "
        "each "
        f"client, over the transcripts of a {b['iterations']}-iteration call (0 to {b['iterations']} tool "
        "turns; "
        f"{b['n']} requests each); then a mesh `tools/call add` to our adder agent over loopback.",
        "",
    ]
    rows = [
        [name, ", ".join(f"{v:.0f}" for v in values), f"**{sum(values) / len(values):.0f}**"]
        for name, values in b["model_request_cpu_us"].items()
    ]
    out += [*table(["model request through", "CPU µs per transcript length", "mean µs"], rows), ""]
    call = b["mesh_call"]
    out += [
        f"A mesh `tools/call add` through the agents' pooled client: client CPU {call['client_cpu_us']:.0f} "
        "µs, "
        f"the adder's CPU {call['adder_cpu_us']:.0f} µs, round trip {call['round_trip_us']:.0f} µs.",
        "",
    ]
    return out
