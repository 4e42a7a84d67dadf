"""The A2A section, from a2a.json (a2a_bench.py)."""

from __future__ import annotations

from typing import Any

from .text import X, count, fmt, missing, run_lines, table

__all__ = ["a2a_section"]

LABELS = {
    "ours-mcp": "ours, MCP `tools/call`",
    "ours-a2a": "ours, A2A `SendMessage` (current dialect)",
    "ours-a2a-mesh": "ours, A2A `tasks/send` (MCP Mesh's dialect)",
    "mesh-a2a": "MCP Mesh 3.8 `mesh.a2a.mount`, A2A `tasks/send`",
}
RATIOS = {
    "ours_a2a_vs_ours_mcp": "our A2A (current dialect) / our MCP",
    "ours_a2a_mesh_vs_ours_mcp": "our A2A (MCP Mesh's dialect) / our MCP",
    "mesh_a2a_vs_ours_a2a_mesh": "MCP Mesh's A2A / ours, same dialect",
}


def a2a_section(res: dict[str, Any] | None) -> list[str]:
    lines = ["## A2A (`benchmarks/a2a_bench.py`)", ""]
    if res is None:
        return [*lines, *missing("A2A", ".venv/bin/python benchmarks/a2a_bench.py"), ""]
    lines += [*run_lines(res["run"]), ""]
    lines += [
        "One tool, `echo(text)`, reached as an MCP tool and as an A2A skill of the same agent (both "
        "dialects), and MCP Mesh's A2A surface doing the same; each a sequential round trip on a kept-alive "
        f"connection. {count(res['rounds'], 'round')} of {res['calls_per_round']} calls per side, the "
        "sides in a rotating order; medians over the rounds of the time per call, of the server process's "
        "CPU per call, and of each round's ratios.",
        "",
    ]
    wall, cpu = res["us_per_call"], res["server_cpu_us_per_call"]
    lines += table(
        ["side", "µs per call", "server CPU µs per call"],
        [[LABELS.get(name, name), fmt(wall[name], 0), fmt(cpu[name], 0)] for name in res["sides"]],
    )
    lines += [""]
    lines += table(
        ["ratio", "time", "server CPU"],
        [
            [text, f"{res['ratios'][key]:.2f} {X}", f"{res['cpu_ratios'][key]:.2f} {X}"]
            for key, text in RATIOS.items()
        ],
    )
    return [*lines, ""]
