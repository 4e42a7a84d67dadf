"""The README's test command on fresh clones, one after another, as CI runs it: each run clones this
repository's HEAD into a scratch folder (with the repository's `../shared` beside it, as CI has it) and runs
`./scripts/test.sh` there, recording whether it passed, its phases (`== PHASE: SECONDS s`), what each pytest
run counted, which tests failed and what pytest printed of their failures.

    .venv/bin/python benchmarks/fresh_runs.py --runs 5 --label quiet

Once every run ended, writes the runs to benchmarks/results/fresh_runs.json (a label's rows replacing that
label's) and benchmarks/results/fresh_runs.md, a table made from it. A run takes the whole command's time.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from _common import Run  # noqa: E402

__all__ = ["main", "one_run"]

RESULTS = ROOT / "benchmarks" / "results"
PHASE = re.compile(r"^== (.+?): (\d+) s( \(failed, exit \d+\))?$", re.MULTILINE)
COUNTS = re.compile(r"^=+ (.*\d+ (?:passed|failed).*) in [\d.]+s", re.MULTILINE)
FAILED = re.compile(r"^(?:FAILED|ERROR) (\S+)", re.MULTILINE)
FURTHER = ("Python 3.12", "Python 3.13")
# What pytest printed of each failure, from its FAILURES section to its summary, kept (the first EXCERPT
# characters of each pytest run's) to tell why a run failed once its clone is gone.
FAILURES = re.compile(r"^=+ (?:FAILURES|ERRORS) =+$(.*?)^=+ short test summary", re.MULTILINE | re.DOTALL)
EXCERPT = 8000


def one_run(scratch: Path) -> dict[str, Any]:
    """Clone HEAD into `scratch`/main and run the test command there; what it printed, summed up."""
    # traversable by all, as a checkout's folder is: the tests run PostgreSQL as `nobody` when run as root,
    # from the binaries in the clone's .venv (a temporary folder is the owner's alone)
    scratch.chmod(0o755)
    clone = scratch / "main"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True, timeout=300)
    shared = ROOT.parent / "shared"
    if shared.is_dir():
        (scratch / "shared").symlink_to(shared)
    commit = subprocess.run(
        ["git", "log", "-1", "--format=%h"], cwd=clone, capture_output=True, text=True, check=True
    ).stdout.strip()
    started = time.perf_counter()
    done = subprocess.run(
        ["./scripts/test.sh"], cwd=clone, capture_output=True, text=True, timeout=90 * 60, check=False
    )
    output = done.stdout + done.stderr
    return {
        "commit": commit,
        "exit": done.returncode,
        "wall_s": round(time.perf_counter() - started),
        "phases": {name: int(seconds) for name, seconds, _failed in PHASE.findall(output)},
        "counts": COUNTS.findall(output),
        "failed_tests": sorted(set(FAILED.findall(output))),
        "failures": [excerpt[:EXCERPT] for excerpt in FAILURES.findall(output)],
    }


def write_table(figures: dict[str, Any]) -> None:
    lines = [
        "# The test command on fresh clones",
        "",
        "Written by `benchmarks/fresh_runs.py`: each run a fresh clone running `./scripts/test.sh`, one",
        "after another; the whole command's wall time, the main pytest run's and the further Pythons'.",
        "",
        "| label | run | commit | result | whole command | setup: tools | main pytest | "
        + " | ".join(FURTHER)
        + " |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for label, rows in figures.items():
        if label == "run":
            continue
        for number, row in enumerate(rows, 1):
            phases = row["phases"]
            main = next((s for name, s in phases.items() if name.startswith("pytest (Python")), None)
            result = (
                "passed"
                if row["exit"] == 0
                else "failed: " + ", ".join(f"`{test.split('::')[-1]}`" for test in row["failed_tests"])
            )
            seconds = [
                phases.get("total"),
                phases.get("setup: tools"),
                main,
                *(phases.get(p) for p in FURTHER),
            ]
            shown = " | ".join("-" if s is None else f"{s} s" for s in seconds)
            lines.append(f"| {label} | {number} | {row['commit']} | {result} | {shown} |")
    (RESULTS / "fresh_runs.md").write_text("\n".join(lines) + "\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--label", required=True, help="e.g. quiet")
    options = parser.parse_args()
    path = RESULTS / "fresh_runs.json"
    figures: dict[str, Any] = json.loads(path.read_text()) if path.exists() else {}
    run = Run()
    rows: list[dict[str, Any]] = []
    for number in range(1, options.runs + 1):
        with tempfile.TemporaryDirectory(prefix="mesh-fresh-") as scratch:
            row = one_run(Path(scratch))
        rows.append(row)
        verdict = "passed" if row["exit"] == 0 else f"failed {row['failed_tests']}"
        print(f"run {number}: {verdict} in {row['wall_s']} s ({row['commit']})", flush=True)
    figures[options.label] = rows
    figures["run"] = run.record()
    path.write_text(json.dumps(figures, indent=2, sort_keys=True) + "\n")
    write_table(figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
