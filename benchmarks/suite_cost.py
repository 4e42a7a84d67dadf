"""What each test module costs: a pytest plugin that records, per module, the wall time, the CPU seconds of
pytest's own process and of the processes it started and waited for (children, and theirs), and how many
processes it started. CPU, not wall, is what a shared machine lets one compare, and what two xdist workers
divide between them.

    .venv/bin/pytest -p benchmarks.suite_cost -p no:xdist tests/...      # writes the figures (below)
    .venv/bin/python benchmarks/suite_cost.py [--top N]                   # prints the dearest modules

The plugin appends one JSON line per module to `$MESH_SUITE_COST` (default
benchmarks/results/suite_cost.jsonl). A module's fixtures torn down in its last test's teardown are
counted with it; a process counts once it has been waited for (every helper in tests/agents.py waits).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import time
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

__all__ = ["pytest_runtest_protocol", "pytest_sessionfinish", "main"]

RESULTS = Path(__file__).resolve().parent / "results" / "suite_cost.jsonl"
_modules: dict[str, dict[str, float]] = {}
_spawned = [0]
_original_init = subprocess.Popen.__init__


def _counting_init(self: subprocess.Popen[Any], *args: Any, **kwargs: Any) -> None:
    _spawned[0] += 1
    _original_init(self, *args, **kwargs)


subprocess.Popen.__init__ = _counting_init  # type: ignore[method-assign]


def _cpu() -> tuple[float, float]:
    times = os.times()
    return times.user + times.system, times.children_user + times.children_system


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, None, None]:
    own, children = _cpu()
    spawned, start = _spawned[0], time.monotonic()
    yield
    own_after, children_after = _cpu()
    row = _modules.setdefault(
        item.nodeid.split("::")[0], {"tests": 0, "wall": 0.0, "own": 0.0, "children": 0.0, "spawned": 0}
    )
    row["tests"] += 1
    row["wall"] += time.monotonic() - start
    row["own"] += own_after - own
    row["children"] += children_after - children
    row["spawned"] += _spawned[0] - spawned


def pytest_sessionfinish(session: pytest.Session) -> None:
    path = Path(os.environ.get("MESH_SUITE_COST") or RESULTS)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as out:
        for module, row in _modules.items():
            out.write(json.dumps({"module": module, **{k: round(v, 2) for k, v in row.items()}}) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", nargs="?", default=str(RESULTS))
    parser.add_argument("--top", type=int, default=40)
    options = parser.parse_args()
    rows: dict[str, dict[str, Any]] = {}
    for line in Path(options.path).read_text().splitlines():
        row = json.loads(line)
        rows[row["module"]] = row  # the last measurement of a module wins
    table = sorted(rows.values(), key=lambda row: -(row["own"] + row["children"]))
    total = sum(row["own"] + row["children"] for row in table)
    print(f"{len(table)} modules, {total:.0f} CPU s, {sum(row['wall'] for row in table):.0f} wall s")
    print(f"{'CPU s':>7} {'own':>6} {'child':>6} {'wall':>6} {'procs':>5} {'tests':>5}  module")
    for row in table[: options.top]:
        cpu = row["own"] + row["children"]
        print(
            f"{cpu:7.1f} {row['own']:6.1f} {row['children']:6.1f} {row['wall']:6.1f} {row['spawned']:5d}"
            f" {row['tests']:5d}  {row['module']}"
        )


if __name__ == "__main__":
    main()
