"""Sections on what features cost a call, in process: background jobs (jobs.json, jobs_bench.py), tracing
(tracing.json, tracing_bench.py), metrics and graceful stop (metrics.json, metrics_bench.py)."""

from __future__ import annotations

from typing import Any

from .text import X, count, missing, run_lines, table

__all__ = ["jobs_section", "metrics_section", "tracing_section"]

JOB_LABELS = {
    "inline": "`inline`: `tools/call` of the same body",
    "job-start": "`job-start`: background call until the job handle is answered",
    "status-poll": "`status-poll`: `__mesh_job_status` of a finished job",
    "job-done": "`job-done`: start, then `__mesh_job_result` until completed",
    "task-start": "`task-start`: task-augmented `tools/call` until the `CreateTaskResult`",
    "task-done": "`task-done`: task start, then `tasks/result` (it waits for the end)",
}
TRACING_LABELS = {
    "off": "off (`tracing.enabled: false`, the default)",
    "on-none": "on, exporter `none` (a server span per call, not exported)",
    "on-batch-drop": "on, a `BatchSpanProcessor` handing spans to an exporter that drops them (no network)",
    "on-traceparent": "on, exporter `none`, the request carrying a `traceparent` to continue",
    "json-logs": "off, `logging.format: json` (the call's tool and request id kept for log lines)",
}
METRICS_LABELS = {
    "endpoint": "the MCP endpoint called directly (no path check, no in-flight count, no metrics)",
    "metrics-off": "the agent's app, metrics off (path check and the in-flight count graceful stop needs)",
    "metrics-on": "the agent's app as it ships, metrics on (calls, errors, latency histogram per tool)",
}


def jobs_section(res: dict[str, Any] | None) -> list[str]:
    lines = ["## Jobs: background tools (`benchmarks/jobs_bench.py`)", ""]
    if res is None:
        return [*lines, *missing("jobs", ".venv/bin/python benchmarks/jobs_bench.py"), ""]
    v = res["variants"]
    lines += [*run_lines(res["run"]), ""]
    lines += [
        "In process (the agent's ASGI app through httpx's ASGI transport, no socket), one body served two "
        "ways "
        "by `benchmarks/jobs_agent`: `work_inline` (the anchor) and `work_job` (`background=True`, one "
        "progress "
        f"report). {res['calls']} calls per variant per round, {count(res['rounds'], 'round')}, the variants "
        "taking "
        "turns "
        f"every {res['chunk']} calls; wall time per call, the ratios of the medians are the result. The "
        "`task-*` "
        "rows are the same job started as a protocol 2025-11-25 task.",
        "",
    ]
    rows = [
        [
            JOB_LABELS.get(key, key),
            f"{row['p50_us']:.0f}",
            f"{row['p90_us']:.0f}",
            f"{row['p50_over_inline']:.2f} {X}",
        ]
        for key, row in v.items()
    ]
    lines += [*table(["variant", "p50 µs", "p90 µs", "p50 / inline"], rows), ""]
    lines += [
        f"Memory held per finished job (tracemalloc's growth while {res['jobs_kept']} finished jobs are kept "
        "by "
        f"`jobs.retention`, divided by their number): **{res['memory_per_job_kib']:.2f} KiB** (arguments, "
        "result, the tool's `CallToolResult`, messages, row fields); `jobs.retention` bounds how many are "
        "kept.",
        "",
        f"Findings: starting a job costs {v['job-start']['p50_over_inline']:.2f} {X} an inline call of the "
        "same "
        "body (a task is created and the handle built); a status poll "
        f"{v['status-poll']['p50_over_inline']:.2f} "
        f"{X}; a client that polls until the end pays {v['job-done']['p50_over_inline']:.2f} {X}, since the "
        "body "
        "itself is trivial here: for the long work jobs are for, the overhead is the handful of polls. "
        f"`tasks/result` waits for the end instead of being polled ({v['task-done']['p50_over_inline']:.2f} "
        f"{X}).",
        "",
    ]
    return lines


def tracing_section(res: dict[str, Any] | None) -> list[str]:
    lines = ["## Tracing overhead (`benchmarks/tracing_bench.py`)", ""]
    if res is None:
        return [*lines, *missing("tracing", ".venv/bin/python benchmarks/tracing_bench.py"), ""]
    us, alone = res["us_per_call"], res["alone_us"]
    lines += [*run_lines(res["run"]), ""]
    lines += [
        "The benchmark agent's `add` called in process (ASGI app called directly, 2026-07-28 envelope), the "
        f"same process switching between tracing states; in each round the variants take turns every "
        f"{res['chunk']} calls, best of {count(res['rounds'], 'round')} of {res['calls']} calls each, "
        "process CPU "
        "time. "
        "The anchor is `off` (the default) in the same run.",
        "",
    ]
    rows = [[TRACING_LABELS.get(k, k), f"{value:.1f}", f"{value / us['off']:.2f}"] for k, value in us.items()]
    lines += [*table(["variant", "CPU µs/call", f"{X} off"], rows), ""]
    rows = [[label, f"{value:.2f}"] for label, value in alone.items()]
    lines += [*table(["alone, outside a request (same run)", "CPU µs"], rows), ""]
    scope = alone.get("our scope, tracing off")
    span = alone.get("SDK span start + end")
    lines += ["Findings:", ""]
    if scope is not None:
        lines.append(
            f"* **Off**: a call enters a shared no-op scope ({scope:.2f} µs alone, against {us['off']:.1f} "
            "µs per "
            "call); the outgoing transport reads one attribute."
        )
    if span is not None:
        lines.append(
            f"* **On**: most of the cost is the OpenTelemetry SDK's span ({span:.1f} µs alone for its start "
            "and "
            f"end with the server span's two attributes; {us['on-none'] - us['off']:.1f} µs per call in "
            "all), "
            "which is why the spans carry few attributes and the agent's name sits on the resource. "
            "Continuing "
            f"a caller's trace adds the `traceparent` parse ({us['on-traceparent'] - us['on-none']:.1f} µs "
            "here)."
        )
    lines += [
        "* **JSON logs** add a request id and a context variable per call "
        f"({us['json-logs'] / us['off']:.2f} {X}).",
        "",
    ]
    return lines


def metrics_section(res: dict[str, Any] | None) -> list[str]:
    lines = ["## Metrics and graceful-stop overhead (`benchmarks/metrics_bench.py`)", ""]
    if res is None:
        return [*lines, *missing("metrics", ".venv/bin/python benchmarks/metrics_bench.py"), ""]
    us = res["us_per_call"]
    base = us["metrics-off"]
    lines += [*run_lines(res["run"]), ""]
    lines += [
        "The benchmark agent's `add` called in process (2026-07-28 envelope), the same app switching by "
        f"assignment; in each round the variants take turns every {res['chunk']} calls, best of "
        f"{count(res['rounds'], 'round')} of {res['calls']} calls, process CPU time. Anchor: `metrics-off` "
        "of the "
        "same "
        "run.",
        "",
    ]
    rows = [[METRICS_LABELS.get(k, k), f"{value:.1f}", f"{value / base:.2f}"] for k, value in us.items()]
    rows.append(
        [
            "`MeshMetrics.tool_call` alone (two counters and a histogram, pre-bound per tool)",
            f"{res['tool_call_alone_us']:.1f}",
            "",
        ]
    )
    lines += [*table(["variant", "CPU µs/call", f"{X} metrics-off"], rows), ""]
    lines += [
        f"Findings: the agent's app with metrics off costs {base / us['endpoint']:.2f} {X} the bare "
        "endpoint (the path check and the in-flight count graceful stop relies on); metrics on cost "
        f"{us['metrics-on'] / base:.2f} {X} that (one `tool_call`, {res['tool_call_alone_us']:.1f} µs alone, "
        "plus two `perf_counter()` reads). `metrics.enabled: false` removes them.",
        "",
    ]
    return lines
