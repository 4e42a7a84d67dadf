"""The official MCP conformance suites, every server scenario, against `mesh gateway` fronting the
conformance fixture agent: a registry, `tests/apps/conformance_app` registered on it, and the gateway
serving its tools. The same three runs as `test_conformance.py`, judged the same way; only the scenarios of
`tests/conformance/gateway_baseline.yml` may fail (each with the reason it cannot apply to a gateway, or
what the gateway does not relay), and an entry whose scenario passes in every run is stale."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.agents import ROOT, loopback, run_agent, run_mesh, run_registry, wait_until
from tests.conformance.test_conformance import RUNS, SuiteRun, baseline, run_suites, verdict

GATEWAY_BASELINE = ROOT / "tests/conformance/gateway_baseline.yml"

pytestmark = pytest.mark.timeout(300)


def served(mcp_url: str) -> set[str]:
    """The tools the gateway lists now (a legacy stateless tools/list)."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    headers = {"Accept": "application/json, text/event-stream"}
    answer = loopback.post(mcp_url, json=body, headers=headers, timeout=10).json()
    return {tool["name"] for tool in answer["result"]["tools"]}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, SuiteRun]]:
    with run_registry(0, "--timeout", "120") as registry:
        env = {"MCP_MESH_REGISTRY_URL": registry.base_url, "MESH_JOBS__MAX_CONCURRENT": "64"}
        with (
            run_agent("tests.apps.conformance_app", env=env),
            run_mesh(["gateway", "--port", "0"], env={"MCP_MESH_REGISTRY_URL": registry.base_url}) as gw,
        ):
            wait_until(lambda: "test_simple_text" in served(gw.mcp_url), timeout=30)
            yield run_suites(gw.mcp_url, tmp_path_factory)


@pytest.mark.parametrize("label", list(RUNS))
def test_every_scenario_passes_through_the_gateway_unless_the_baseline_says_why(
    runs: dict[str, SuiteRun], label: str
) -> None:
    run = runs[label]
    assert run.announced is not None and len(run.checks) == run.announced, run.output[-3000:]
    expected = baseline(GATEWAY_BASELINE)
    failures = {
        scenario: why
        for scenario, checks in run.checks.items()
        if (why := verdict(checks)) is not None and scenario not in expected
    }
    assert not failures, f"{label}:\n" + "\n".join(f"- {s}: {w}" for s, w in sorted(failures.items()))


def test_the_gateway_baseline_has_no_stale_entry(runs: dict[str, SuiteRun]) -> None:
    ran: dict[str, list[str | None]] = {}
    for run in runs.values():
        for scenario, checks in run.checks.items():
            ran.setdefault(scenario, []).append(verdict(checks))
    entries = baseline(GATEWAY_BASELINE)
    unknown = [s for s in entries if s not in ran]
    passing = [s for s in entries if s in ran and all(v is None for v in ran[s])]
    assert not unknown, f"gateway baseline entries no suite has: {unknown}"
    assert not passing, f"gateway baseline entries that pass now (remove them): {passing}"
