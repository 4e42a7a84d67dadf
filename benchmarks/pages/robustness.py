"""Bad input, faults and soak: runs that count failures and watch for drift, without an anchor.

Results files: fuzz.json (fuzz_long.py), faults.json (faults_bench.py), soak.json (soak.py).
"""

from __future__ import annotations

from typing import Any

from .text import fmt, missing, run_lines, table

__all__ = ["robustness_section"]


def robustness_section(
    fuzz: dict[str, Any] | None, faults: dict[str, Any] | None, soak: dict[str, Any] | None
) -> list[str]:
    lines = [
        "## Bad input, faults and soak",
        "",
        "No anchor here: these runs count failures and watch for drift, they do not compare speeds.",
        "",
        "### Fuzzing, long run (`benchmarks/fuzz_long.py`)",
        "",
    ]
    if fuzz is None:
        lines += [*missing("fuzzing", ".venv/bin/python benchmarks/fuzz_long.py 500"), ""]
    else:
        lines += [*run_lines(fuzz["run"]), ""]
        state = "every property held" if fuzz["exit_status"] == 0 else f"pytest exited {fuzz['exit_status']}"
        lines += [
            f"{fuzz['examples']} examples per property over `/mcp` in both protocol eras, the registry API "
            "from "
            "its OpenAPI description, and settings and catalog files "
            f"({', '.join(f'`{f}`' for f in fuzz['files'])}): {state} (pytest: {fuzz['summary']}). The "
            "properties: no 5xx, no traceback in an answer or a log, no request left unanswered. The test "
            "command runs the same properties with fewer examples.",
            "",
        ]
        if fuzz.get("failed"):
            lines += ["Failed in this run:", "", *[f"* `{name}`" for name in fuzz["failed"]], ""]
    lines += ["### Faults (`benchmarks/faults_bench.py`)", ""]
    if faults is None:
        lines += [*missing("faults", ".venv/bin/python benchmarks/faults_bench.py"), ""]
    else:
        lines += [*run_lines(faults["run"]), ""]
        lines += [
            "A registry, a consumer (`tools.timeout: 2`, heartbeat 1 s) and two providers, real processes "
            "on "
            f"loopback; a pacer calls the consumer's tool {faults['rate']:g} times a second, one call at a "
            "time, "
            "throughout. Lost = calls answered with an error; recovery = from the repair (or the fault, when "
            "nothing is repaired) to the first call that succeeds after the last failure.",
            "",
        ]
        rows = [
            [
                r["fault"],
                r["calls"],
                r["failed"],
                fmt(r["first_failure_after_s"], 2),
                fmt(r["recovered_after_repair_s"], 2),
                len(r["warnings"]),
            ]
            for r in faults["results"]
        ]
        header = ["fault", "calls", "lost", "first loss after s", "recovered after s", "WARNING lines"]
        lines += [
            *table(header, rows),
            "",
            '"Registry down at start" counts the calls made while the registry was away: the consumer cannot '
            "resolve its dependency until the registry serves, and answers each such call at once with an "
            "error "
            "naming the capability; its recovery is from the registry serving to the first successful call.",
            "",
        ]
    lines += ["### Soak (`benchmarks/soak.py`)", ""]
    if soak is None:
        return [*lines, *missing("the soak", ".venv/bin/python benchmarks/soak.py --minutes 3"), ""]
    lines += [*run_lines(soak["run"]), ""]
    windows = soak["windows"]
    lines += [
        f"Calls through consumer → provider at {soak['rate']:g} per second for {soak['minutes']:g} minutes "
        "while "
        f"a second provider is started or stopped every {soak['churn_s']:g} s (one stop in three a SIGKILL); "
        f"the registry, the consumer and the first provider run throughout. Windows of {soak['window_s']:g} "
        "s.",
        "",
        f"* {soak['calls']} calls, **{soak['errors']} errors**, p50 {fmt(soak['p50_ms'], 2)} ms, p99 "
        f"{fmt(soak['p99_ms'], 2)} ms; {soak['heartbeat_failed_warnings']} `heartbeat failed` warnings.",
    ]
    if windows:
        first, last = windows[0], windows[-1]
        p99 = [w["p99_ms"] for w in windows]
        lines.append(
            f"* p99 per window {min(p99):.2f}-{max(p99):.2f} ms; {last['topology_changes']} topology changes."
        )
        for name in first["rss_kib"]:
            grown = last["rss_kib"][name] - first["rss_kib"][name]
            fds = sorted({w["fds"][name] for w in windows})
            lines.append(
                f"* {name}: RSS {first['rss_kib'][name] / 1024:.1f} → {last['rss_kib'][name] / 1024:.1f} MiB "
                f"({grown:+d} KiB from the first window to the last), open descriptors {fds[0]}-{fds[-1]}"
            )
    return [*lines, ""]
