"""Formatting shared by the sections: tables, verdicts, the line that says when and how a run was made.

Everything here turns figures from a results file into text; nothing computes a figure of its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = [
    "DASH",
    "X",
    "count",
    "fmt",
    "missing",
    "ratio",
    "run_lines",
    "table",
    "verdict",
    "verdict_at_least",
]

X = "\u00d7"  # the multiplication sign
DASH = "\u2013"  # an empty cell


def fmt(value: Any, digits: int = 1, unit: str = "") -> str:
    """A figure with `digits` decimals (ints as they are), or a dash when there is none."""
    if value is None:
        return DASH
    if isinstance(value, float):
        return f"{value:.{digits}f}{unit}"
    return f"{value}{unit}"


def count(number: int, noun: str) -> str:
    """ "1 run", "3 runs"."""
    return f"{number} {noun}" + ("" if number == 1 else "s")


def ratio(numerator: float | None, denominator: float | None, digits: int = 2) -> str:
    if not numerator or not denominator:
        return DASH
    return f"{numerator / denominator:.{digits}f} {X}"


def table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += [
        "| " + " | ".join(fmt(cell) if not isinstance(cell, str) else cell for cell in row) + " |"
        for row in rows
    ]
    return lines


def verdict(value: float | None, target: float) -> str:
    """The verdict of a "value ≤ target" target, with the margin."""
    if value is None:
        return "not measured"
    if value <= target:
        return f"**met** ({(1 - value / target) * 100:.0f} % under)"
    return f"**missed** ({(value / target - 1) * 100:.0f} % over)"


def verdict_at_least(value: float | None, target: float) -> str:
    """The verdict of a "value ≥ target" target, with the margin."""
    if value is None:
        return "not measured"
    if value >= target:
        return f"**met** ({(value / target - 1) * 100:.0f} % above)"
    return f"**missed** ({(1 - value / target) * 100:.0f} % short)"


def _load(values: Sequence[float]) -> str:
    return " ".join(f"{x:.2f}" for x in values)


def run_lines(run: dict[str, Any]) -> list[str]:
    """When, how and on how busy a machine the results were measured, as a paragraph (and a warning when
    the run was short or the machine busier than its cores)."""
    machine = run["machine"]
    cores = machine["nproc"]
    lines = [
        f"Run {run['date']}, {run['elapsed_s']:.0f} s: `{run['command']}`. Load average (1, 5, 15 min) "
        f"{_load(run['loadavg_start'])} at the start, {_load(run['loadavg_end'])} at the end, highest "
        f"1-minute figure {run['loadavg_peak_1min']:.2f}, on {cores} cores ({machine['cpu_model']}; Python "
        f"{machine['python']}). The machine is shared: absolute figures are noisy, the ratios of one run "
        "are what count.",
    ]
    if run["short"]:
        lines += [
            "",
            "**Short configuration**: fewer runs or shorter loads than the script's defaults, so the figures "
            "are indicative only.",
        ]
    if run["loadavg_peak_1min"] > cores:
        lines += [
            "",
            f"**Busy machine**: the 1-minute load average reached {run['loadavg_peak_1min']:.2f} on {cores} "
            "cores during this run (other work competed for the CPU).",
        ]
    return lines


def missing(what: str, command: str) -> list[str]:
    return [
        f"No results for {what} in `benchmarks/results/` yet: run `{command}`, then `benchmarks/report.py`."
    ]
