"""The service interfaces section, from service.json (service_bench.py)."""

from __future__ import annotations

from typing import Any

from .goals import SERVICE
from .text import X, count, fmt, missing, run_lines, table

__all__ = ["service_section", "service_value"]

LABELS = {
    "http": "over HTTP: the provider is another agent process",
    "in-process": "in process: the provider tool served by the same agent (no HTTP)",
}


def service_value(res: dict[str, Any]) -> tuple[float, str] | None:
    """The figure the target is judged on: the higher CPU-per-call ratio of the two settings (the in-process
    one shows the service object's own cost most), with where it comes from."""
    figures = [
        (row["cpu_ratio"], name) for name, row in res["settings"].items() if row.get("cpu_ratio") is not None
    ]
    return max(figures) if figures else None


def service_section(res: dict[str, Any] | None) -> list[str]:
    lines = ["## Service interfaces (`benchmarks/service_bench.py`)", ""]
    if res is None:
        return [*lines, *missing("service interfaces", ".venv/bin/python benchmarks/service_bench.py"), ""]
    lines += [*run_lines(res["run"]), ""]
    settings = res["settings"]
    first = next(iter(settings.values()))
    lines += [
        "One provider tool (`media.caption`, answering a Caption model) called through the same proxy two "
        "ways: `await caption(text=...)` on a plain `McpMeshTool`, and `await media.caption(text=...)` on "
        "the object a `@mesh_service` parameter receives, which also validates the answer into a Caption. "
        f"{count(first['rounds'], 'round')} per setting, each a batch of calls per side, the order "
        "alternating; medians over the rounds of the mean time and process CPU per call, and of each "
        "round's service/plain ratio.",
        "",
    ]
    rows = [
        [
            LABELS.get(name, name),
            str(row["calls_per_round"]),
            fmt(row["plain_us"]),
            fmt(row["service_us"]),
            f"{row['ratio']:.3f} {X}",
            fmt(row["plain_cpu_us"]),
            fmt(row["service_cpu_us"]),
            f"{row['cpu_ratio']:.3f} {X}" if row.get("cpu_ratio") is not None else "-",
        ]
        for name, row in settings.items()
    ]
    lines += table(
        [
            "setting",
            "calls per side and round",
            "plain µs/call",
            "service µs/call",
            "time ratio",
            "plain CPU µs/call",
            "service CPU µs/call",
            "CPU ratio",
        ],
        rows,
    )
    value = service_value(res)
    if value is not None:
        ratio, name = value
        lines += [
            "",
            f"Target {SERVICE.text()}: judged on the CPU ratio {ratio:.3f} {X} ({LABELS.get(name, name)}), "
            f"{SERVICE.verdict(ratio)}. CPU per call is the figure that counts on a shared machine: the "
            "time per call also holds the waits for a core that other work took.",
        ]
    return [*lines, ""]
