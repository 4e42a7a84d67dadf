"""The schema matching section, from schema.json (schema_bench.py)."""

from __future__ import annotations

from typing import Any

from .goals import SCHEMA
from .text import X, count, fmt, missing, run_lines, table

__all__ = ["schema_section", "schema_value"]


def schema_value(res: dict[str, Any]) -> float | None:
    """The figure the target is judged on: the median of the rounds' with/without ratios."""
    value = res.get("ratio")
    return float(value) if isinstance(value, int | float) else None


def schema_section(res: dict[str, Any] | None) -> list[str]:
    lines = ["## Schema matching in resolution (`benchmarks/schema_bench.py`)", ""]
    if res is None:
        return [*lines, *missing("schema matching", ".venv/bin/python benchmarks/schema_bench.py"), ""]
    args = res["args"]
    lines += [*run_lines(res["run"]), ""]
    lines += [
        f"The embedded registry's resolution of every consumer of a fleet of {args['agents']} agents: "
        f"{res['consumers']} consumers with {res['slots_per_consumer']} dependencies each, "
        f"{res['providers_per_capability']} providers per capability. Without schemas, and with every "
        "provider publishing its output schema (half of them another shape) and every dependency expecting "
        f"a shape (`match_mode` subset). {count(args['rounds'], 'round')}, the sides taking turns; medians "
        "of the time per consumer resolution and of each round's ratio.",
        "",
    ]
    times = res["us_per_consumer"]
    lines += table(
        ["side", "µs per consumer resolution"],
        [["without schemas", fmt(times["without"])], ["with schema matching", fmt(times["with"])]],
    )
    ratio = schema_value(res)
    lines += [
        "",
        f"Ratio with/without: {fmt(ratio, 3)} {X}. Target {SCHEMA.text()}: {SCHEMA.verdict(ratio)}.",
    ]
    return [*lines, ""]
