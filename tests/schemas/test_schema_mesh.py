"""Schema matching between our agents as real processes on our registry: the consumer wires to the provider
with the shape it expects (not the newer one), an unmatched dependency says why at call time and in the
log, a provider whose answer does not fit is refused naming the field, and a bad expected type stops
start-up."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.agents import AgentProcess, loopback, run_agent, run_cli, run_registry, wait_until
from tests.mesh.test_mesh_integration import call, mesh_env, text

pytestmark = pytest.mark.timeout(90)


@pytest.fixture(scope="module")
def registry() -> Iterator[AgentProcess]:
    with run_registry(0, "--timeout", "5") as running:
        yield running


@pytest.fixture(scope="module")
def route_viewer(registry: AgentProcess) -> Iterator[AgentProcess]:
    with run_agent("tests.apps.schema_route_app", env=mesh_env(registry.base_url)) as running:
        yield running


@pytest.fixture(scope="module")
def mesh(registry: AgentProcess, route_viewer: AgentProcess) -> Iterator[AgentProcess]:
    env = mesh_env(registry.base_url)
    with (
        run_agent("tests.apps.schema_caption_app", env=env),
        run_agent("tests.apps.schema_label_app", env=env),
        run_agent("tests.apps.schema_viewer_app", env=env) as viewer,
    ):
        yield viewer


def answered(viewer: AgentProcess, tool: str) -> dict[str, Any]:
    found: dict[str, Any] = wait_until(  # type: ignore[assignment]
        lambda: (r := call(viewer, tool, {"text": "cat"})) and not r["isError"] and r, timeout=20
    )
    return found


def test_the_consumer_wires_to_the_provider_with_the_expected_shape(mesh: AgentProcess) -> None:
    # label-provider is newer (2.0.0) and would win on version; its result has no `text`
    assert text(answered(mesh, "show")) == "a picture of cat (0.9)"


def test_a_route_dependency_is_matched_by_schema_too(mesh: AgentProcess) -> None:
    answered(mesh, "show")

    def page() -> dict[str, Any] | None:
        response = loopback.get(mesh.base_url + "/caption", params={"text": "dog"}, timeout=5)
        return response.json() if response.status_code == 200 else None  # type: ignore[no-any-return]

    assert wait_until(page, timeout=20) == {"text": "a picture of dog", "confidence": 0.9}


def test_an_unmatched_shape_is_refused_with_the_registrys_reason(mesh: AgentProcess) -> None:
    answered(mesh, "show")  # the mesh is up
    expected = "no provider of `caption` with tags -sloppy, schema subset: 1 evicted by tags ("

    def refused() -> str | None:
        result = call(mesh, "show_rating", {"text": "cat"})
        return text(result) if result["isError"] and expected in text(result) else None

    message = wait_until(refused, timeout=20)
    assert "cannot run: its dependency 'caption' (dependency 0) is not resolved: " in str(message)
    assert ":sloppy_caption: has excluded tag sloppy), 2 evicted by schema (" in str(message)
    assert ":label: missing stars, missing text" in str(message)
    # logged as a WARNING once the slot has stayed unresolved through a heartbeat round
    warned = "tool 'show_rating': dependency 0 is unresolved: no provider of `caption` with tags -sloppy"
    assert wait_until(lambda: warned in mesh.text(), timeout=20)


def test_an_unmatched_route_is_named_with_its_method(mesh: AgentProcess, route_viewer: AgentProcess) -> None:
    answered(mesh, "show")  # the providers are up
    expected = (
        "tool 'GET:/api/missing': dependency 0 is unresolved: no provider of `caption` with tags -sloppy"
    )

    def logged() -> bool:
        response = loopback.get(route_viewer.base_url + "/api/missing", params={"text": "x"}, timeout=5)
        assert response.status_code == 503
        return expected in route_viewer.text()

    assert wait_until(logged, timeout=20)
    assert "tool '/api/missing'" not in route_viewer.text()


def test_a_result_that_does_not_fit_the_expected_type_names_the_field(mesh: AgentProcess) -> None:
    answered(mesh, "show")

    def refused() -> str | None:
        result = call(mesh, "show_sloppy", {"text": "cat"})
        return text(result) if result["isError"] and "does not match" in text(result) else None

    message = str(wait_until(refused, timeout=20))
    assert "the result of 'caption' does not match the expected type" in message
    assert "field 'confidence': Field required" in message
    assert "Traceback" not in message


def test_the_events_of_our_registry_say_why_it_wired(registry: AgentProcess, mesh: AgentProcess) -> None:
    answered(mesh, "show")
    events = loopback.get(
        registry.base_url + "/events",
        params={"type": "dependency_resolved", "function_name": "show"},
        timeout=5,
    ).json()
    data = events["events"][0]["data"]
    schema = next(s for s in data["stages"] if s["stage"] == "schema")
    (evicted,) = [e for e in schema["evicted"] if e["id"].startswith("label-provider-")]
    assert evicted["details"]["reasons"] == [{"field": "text", "kind": "missing_field", "path": "text"}]
    assert data["chosen"]["function_name"] == "caption"


def test_an_expected_type_without_a_schema_stops_start_up() -> None:
    result = run_cli(["run", "tests.apps.schema_bad", "--port", "0"])
    assert result.returncode == 1
    assert "wiring problem(s) found before start-up" in result.stderr
    assert (
        "dependency 0 ('caption'): expected_type: type tests.apps.schema_bad.Handle has no JSON Schema"
        in (result.stderr)
    )
    assert "Traceback" not in result.stderr


def test_mesh_explain_prints_the_trace_of_each_slot(registry: AgentProcess, mesh: AgentProcess) -> None:
    answered(mesh, "show")
    shown = run_cli(["explain", "viewer", "caption", "--registry-url", registry.base_url])
    assert shown.returncode == 0, shown.stderr
    out = shown.stdout
    assert "tool show, dependency 0" in out and "tool show_rating, dependency 0" in out
    assert "`caption`, schema subset -> caption-provider-" in out
    schema_rows = [line for line in out.splitlines() if line.startswith("schema ")]
    assert any("SchemaIncompatible" in row and "missing text" in row for row in schema_rows)
    assert any(row.split()[2] == "chosen" for row in out.splitlines() if row.startswith("tiebreaker"))
    as_json = run_cli(["explain", "viewer", "caption", "--registry-url", registry.base_url, "--json"])
    reports = json.loads(as_json.stdout)["explanations"]
    by_tool = {r["function_name"]: r for r in reports}
    assert by_tool["show"]["status"] == "available" and by_tool["show"]["source"] == "events"
    assert by_tool["show_rating"]["trace"]["stages"][-1]["stage"] == "schema"


def test_mesh_explain_names_an_unknown_agent_or_dependency(
    registry: AgentProcess, mesh: AgentProcess
) -> None:
    answered(mesh, "show")
    unknown = run_cli(["explain", "nobody", "caption", "--registry-url", registry.base_url])
    assert unknown.returncode == 1
    assert unknown.stderr.startswith("mesh explain: no agent named or with id 'nobody' at ")
    assert "caption-provider" in unknown.stderr  # the agents it knows
    no_dependency = run_cli(["explain", "viewer", "weather", "--registry-url", registry.base_url])
    assert no_dependency.returncode == 1
    assert "agent 'viewer' (viewer-" in no_dependency.stderr
    assert "has no dependency on 'weather' (its dependencies: caption)" in no_dependency.stderr
