"""How often the test families that once failed by chance fail on a crowded machine: each family's tests
run N times, each run a fresh pytest, with CPU hogs beside them (busy Python loops, one a core by default,
stopped by their PIDs at the end), and the failures counted.

    .venv/bin/python benchmarks/flake_rate.py --label before --runs 20            # every family
    .venv/bin/python benchmarks/flake_rate.py --label after --runs 20 ctrl_c jobs_wait

Writes benchmarks/results/flake_rates.json (kept figures: a family's row per label, a later run replacing
the same label's; `run`: when and under what load the last invocation ran, as every results file says) and
benchmarks/results/flake_rates.md, a table made from it.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

__all__ = ["FAMILIES", "main"]

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from _common import Run  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
PYTEST = [str(ROOT / ".venv" / "bin" / "python"), "-m", "pytest"]

# name: (what once failed, the pytest arguments that run it)
FAMILIES: dict[str, tuple[str, list[str]]] = {
    "ctrl_c": (
        "`mesh call --wait` interrupted with Ctrl-C cancels the job",
        ["tests/cli/test_cli_json.py::test_ctrl_c_while_waiting_cancels_the_job"],
    ),
    "jobs_wait": (
        "`mesh call --wait` while the agent running the job stops",
        ["tests/jobs/test_jobs_shutdown.py", "-k", "mesh_call_wait"],
    ),
    "jobs_cancel": (
        "a cancel sent through mcp-mesh's `__mesh_job_cancel` reaches the job our agent runs",
        ["tests/interop/test_interop_jobs.py::test_mcp_mesh_cancels_a_job_our_agent_runs"],
    ),
    "console_10k": (
        "the console page after 10,000 traces",
        [
            "tests/console/test_console_page.py::test_ten_thousand_traces_keep_the_bound_and_the_page_responsive"
        ],
    ),
    "streams_at_stop": ("streams open when an agent stops", ["tests/server/test_streams_at_stop.py"]),
    "route_provider_leaves": (
        "a route answers 503 again once the provider of its dependency has left the mesh",
        [
            "tests/routes/test_routes.py::"
            "test_dependencies_of_routes_resolve_through_the_registry_and_follow_the_provider"
        ],
    ),
    "chat_page": (
        "the starter's chat page",
        ["tests/starter/test_starter_chat_page.py", "tests/starter/test_starter_chat.py"],
    ),
}
FAILED = re.compile(r"^(?:FAILED|ERROR) (\S+)", re.MULTILINE)


@contextmanager
def hogs(count: int) -> Iterator[None]:
    """`count` busy loops, each a process, for as long as the block runs."""
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    try:
        yield
    finally:
        for process in busy:
            process.kill()
            process.wait()


def run_family(arguments: list[str], runs: int) -> dict[str, Any]:
    failures: dict[str, int] = {}
    failed_runs = 0
    seconds: list[float] = []
    for run in range(runs):
        start = time.monotonic()
        done = subprocess.run(
            [*PYTEST, *arguments, "-p", "no:xdist", "-p", "no:cacheprovider", "-q", "-rfE"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
        seconds.append(time.monotonic() - start)
        names = FAILED.findall(done.stdout)
        if done.returncode != 0:
            failed_runs += 1
            for name in names or [f"exit {done.returncode}"]:
                failures[name] = failures.get(name, 0) + 1
            (RESULTS / "flake_logs").mkdir(exist_ok=True)
            log = RESULTS / "flake_logs" / f"{arguments[0].replace('/', '_')}-{run}.log"
            log.write_text(done.stdout[-20000:] + done.stderr[-5000:])
        print(f"  run {run + 1}/{runs}: exit {done.returncode} in {seconds[-1]:.0f} s", flush=True)
    return {
        "runs": runs,
        "failed_runs": failed_runs,
        "failures": failures,
        "median_seconds": round(sorted(seconds)[len(seconds) // 2], 1),
    }


def write_table(figures: dict[str, Any]) -> None:
    lines = [
        "# Flake rates under load",
        "",
        "Written by `benchmarks/flake_rate.py`: each family's tests run again and again, each run a fresh",
        "pytest with one busy-loop process a core beside it; a run fails when any of its tests fails.",
        "",
        "| family | what once failed | label | date | hogs | failed runs | failing tests | median run |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, labels in figures.items():
        if name == "run":
            continue
        for label, row in labels.items():
            failures = row["failures"].items()
            failing = ", ".join(f"`{test.split('::')[-1]}` x{count}" for test, count in failures)
            lines.append(
                f"| {name} | {FAMILIES[name][0] if name in FAMILIES else ''} | {label} | {row['date']}"
                f" | {row['hogs']} | {row['failed_runs']} of {row['runs']} | {failing or '-'}"
                f" | {row['median_seconds']} s |"
            )
    (RESULTS / "flake_rates.md").write_text("\n".join(lines) + "\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("families", nargs="*", help=f"some of: {', '.join(FAMILIES)} (default: all)")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--hogs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--label", required=True, help="e.g. before, after")
    options = parser.parse_args()
    unknown = set(options.families) - set(FAMILIES)
    if unknown:
        parser.error(f"unknown families {sorted(unknown)}; choose from {', '.join(FAMILIES)}")
    path = RESULTS / "flake_rates.json"
    figures: dict[str, Any] = json.loads(path.read_text()) if path.exists() else {}
    run = Run()
    for name in options.families or list(FAMILIES):
        print(f"{name}: {options.runs} runs, {options.hogs} hogs", flush=True)
        with hogs(options.hogs):
            row = run_family(FAMILIES[name][1], options.runs)
        row.update(hogs=options.hogs, date=dt.date.today().isoformat())
        figures.setdefault(name, {})[options.label] = row
        figures["run"] = run.record()
        run = Run()  # the next family's record starts now
        path.write_text(json.dumps(figures, indent=2, sort_keys=True) + "\n")
        write_table(figures)
        print(f"{name}: {row['failed_runs']} of {row['runs']} runs failed {row['failures']}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
