"""The targets table at the top of docs/benchmarks.md: every target, what its benchmark measured, the
verdict, and which run it comes from."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import goals
from .llm import llm_values
from .mesh import calc_values
from .schema import schema_value
from .server import cli_values, cpu_ratios, framework_values, inproc_ratio, starter_values
from .service import service_value
from .stream import stream_values
from .text import DASH, X, table
from .topology import topology_values

__all__ = ["targets_section"]

Results = dict[str, dict[str, Any]]
Row = list[str]


def _source(name: str, data: dict[str, Any]) -> str:
    run = data["run"]
    load = f"load {run['loadavg_start'][0]:.1f} → {run['loadavg_end'][0]:.1f}"
    return f"{name}, {run['date'][:10]}, {load}" + (", short" if run["short"] else "")


def _row(goal: goals.Goal, measured: str, value: float | None, source: str) -> Row:
    return [goal.measure, goal.text(), measured, goal.verdict(value), source]


def _not_run(goal: goals.Goal, why: str) -> Row:
    return [goal.measure, goal.text(), why, "not measured", DASH]


def _inproc(r: Results) -> list[Row]:
    data = r.get("inproc")
    if data is None:
        return [_not_run(goals.INPROC, "no results yet")]
    value = inproc_ratio(data)
    return [_row(goals.INPROC, f"{value:.2f} {X}", value, _source("in process", data))]


def _cpu(r: Results) -> list[Row]:
    data = r.get("server_cpu")
    if data is None:
        return [
            _not_run(g, "no results yet")
            for g in (goals.CPU_OUR_STACK, goals.CPU_STOCK, goals.CPU_LEGACY, goals.SYNC_TOOL)
        ]
    ratios, source = cpu_ratios(data), _source("server CPU", data)
    sync = ratios.get("sync")
    return [
        _row(goals.CPU_OUR_STACK, f"{ratios['our_stack']:.2f} {X}", ratios["our_stack"], source),
        _row(goals.CPU_STOCK, f"{ratios['stock']:.2f} {X}", ratios["stock"], source),
        _row(goals.CPU_LEGACY, f"{ratios['legacy']:.2f} {X}", ratios["legacy"], source),
        _row(goals.SYNC_TOOL, f"{sync:.2f} {X}", sync, source)
        if sync is not None
        else _not_run(goals.SYNC_TOOL, "not in the last run"),
    ]


def _startup(r: Results) -> list[Row]:
    data = r.get("startup")
    values = starter_values(data) if data else None
    if data is None or values is None:
        return [
            _not_run(g, "no results yet")
            for g in (goals.STARTUP, goals.RSS, goals.FRAMEWORK_START, goals.FRAMEWORK_RSS)
        ]
    start, rss = values
    source = _source("start-up", data)
    rows = [
        _row(goals.STARTUP, f"{start:.3f} s", start, source),
        _row(goals.RSS, f"{rss:.1f} MiB", rss, source),
    ]
    own = framework_values(data)
    if own is None:
        return [
            *rows,
            *(_not_run(g, "no floor in the last run") for g in (goals.FRAMEWORK_START, goals.FRAMEWORK_RSS)),
        ]
    return [
        *rows,
        _row(goals.FRAMEWORK_START, f"{own[0]:.0f} ms", own[0], source),
        _row(goals.FRAMEWORK_RSS, f"{own[1]:.1f} MiB", own[1], source),
    ]


def _cli(r: Results) -> list[Row]:
    data = r.get("cli")
    if data is None:
        return [_not_run(goals.CLI, "no results yet")]
    values = cli_values(data)
    shown = [values[n] for n in ("mesh --help", "mesh list") if n in values]
    measured = " / ".join(f"{v:.3f} s" for v in shown) + " (`--help` / `list`)"
    return [_row(goals.CLI, measured, max(shown) if shown else None, _source("CLI", data))]


def _mesh(r: Results) -> list[Row]:
    data = r.get("mesh")
    values = calc_values(data) if data else None
    if data is None or values is None:
        return [_not_run(g, "no results yet") for g in (goals.CALC_P50, goals.CALC_THROUGHPUT)]
    source = _source("mesh", data)
    rows = [_row(goals.CALC_P50, f"{values['p50_ms']:.2f} ms", values["p50_ms"], source)]
    ratio = values.get("throughput_ratio")
    rows.append(_row(goals.CALC_THROUGHPUT, f"{ratio:.2f} {X}" if ratio else "-", ratio, source))
    return rows


def _topology(r: Results) -> list[Row]:
    data = r.get("topology")
    values = topology_values(data) if data else None
    if data is None or values is None:
        return [_not_run(g, "no results yet") for g in (goals.PROVIDER_START, goals.SWITCH)]
    source = _source("instant topology", data)
    start, switch = values["start_s"], values["switch_ms"]
    return [
        _row(goals.PROVIDER_START, f"{start:.3f} s" if start is not None else "-", start, source),
        _row(goals.SWITCH, f"{switch:.1f} ms" if switch is not None else "-", switch, source),
    ]


def _llm(r: Results) -> list[Row]:
    data = r.get("llm")
    values = llm_values(data) if data else {}
    if data is None or not values:
        return [_not_run(goals.LLM, "no results yet")]
    names = {"direct": "direct", "mesh-provider": "via a provider"}
    measured = ", ".join(f"{value:.2f} {X} {names[key]}" for key, value in values.items())
    return [_row(goals.LLM, measured, min(values.values()), _source("LLM", data))]


def _service(r: Results) -> list[Row]:
    data = r.get("service")
    value = service_value(data) if data else None
    if data is None or value is None:
        return [_not_run(goals.SERVICE, "no results yet")]
    ratio, setting = value
    return [
        _row(goals.SERVICE, f"{ratio:.3f} {X} CPU per call ({setting})", ratio, _source("services", data))
    ]


def _schema(r: Results) -> list[Row]:
    data = r.get("schema")
    value = schema_value(data) if data else None
    if data is None or value is None:
        return [_not_run(goals.SCHEMA, "no results yet")]
    return [_row(goals.SCHEMA, f"{value:.3f} {X}", value, _source("schema matching", data))]


def _stream(r: Results) -> list[Row]:
    data = r.get("stream")
    values = stream_values(data) if data else None
    if data is None or values is None:
        return [_not_run(g, "no results yet") for g in (goals.STREAM_FIRST, goals.STREAM_CHUNK)]
    source = _source("streaming", data)
    first, chunk = values["first_ms"], values["chunk_ms"]
    return [
        _row(goals.STREAM_FIRST, f"{first:.2f} ms", first, source),
        _row(goals.STREAM_CHUNK, f"{chunk:.3f} ms", chunk, source),
    ]


ROWS: tuple[Callable[[Results], list[Row]], ...] = (
    _inproc,
    _cpu,
    _startup,
    _cli,
    _mesh,
    _topology,
    _llm,
    _service,
    _schema,
    _stream,
)


def targets_section(results: Results) -> list[str]:
    rows = [row for build in ROWS for row in build(results)]
    return [
        "## Targets",
        "",
        "What the project aims for, what the latest committed run of each benchmark measured, and the "
        "verdict "
        "computed from it. A benchmark runs beside its anchor in one run, interleaved, and reports ratios: "
        "on a "
        "shared machine absolute times are noise, so most targets are ratios. Where a verdict rests on an "
        "absolute time, read it with the run's load (last column, 1-minute load average at the start and the "
        "end of the run).",
        "",
        *table(["measure", "target", "measured", "verdict", "run"], rows),
        "",
    ]
