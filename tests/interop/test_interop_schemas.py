"""Schema matching and the resolution audit with the real MCP Mesh 3.8: MCP Mesh's Go registry applies its
schema stage to our agents (their canonical hashes are the ones mcp-mesh publishes for the same models),
our registry applies the same rule to mcp-mesh agents, and `mesh explain` reads MCP Mesh's audit events.

mcp-mesh's `caption` agent, in both tests, starts once: the first test runs on MCP Mesh's registry, the
second on ours, which replaces it at the same URL (`RegistrySeat`); the agent then registers with ours."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import BaseModel

from mesh_framework.schemas import canonical_schema
from tests.agents import loopback, run_agent
from tests.agents import wait_until as wait_for
from tests.cli_in_process import run_cli_in_process
from tests.interop.mcp_mesh import (
    AGENTS_DIR,
    MeshAgent,
    registry_agents,
    run_mesh_python_agent,
)
from tests.interop.registry_seat import RegistrySeat
from tests.mesh.test_mesh_integration import call, text

pytestmark = pytest.mark.timeout(180)


class Caption(BaseModel):
    text: str
    confidence: float


def events(url: str, **query: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = loopback.get(url + "/events", params=query, timeout=5).json()["events"]
    return found


def schema_stage(event: dict[str, Any]) -> dict[str, Any]:
    stage: dict[str, Any] = next(s for s in event["data"]["stages"] if s["stage"] == "schema")
    return stage


@pytest.fixture(scope="module")
def seat(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RegistrySeat]:
    """The registry URL of the module: MCP Mesh's registry, then ours (`mesh registry --timeout 10`)."""
    running = RegistrySeat(tmp_path_factory.mktemp("registry"), "--timeout", "10")
    running.serve("mcp-mesh")
    try:
        yield running
    finally:
        running.close()


@pytest.fixture(scope="module")
def mesh_caption(seat: RegistrySeat) -> Iterator[MeshAgent]:
    """mcp-mesh's `caption` provider (`mesh-caption`), on whichever registry serves the seat."""
    with run_mesh_python_agent(AGENTS_DIR / "schema_caption.py", seat.url) as caption:
        yield caption


def on(seat: RegistrySeat, kind: str, agent: MeshAgent) -> str:
    """The seat's URL once `kind`'s registry serves it and `agent` is healthy there (it registers again
    after a swap)."""
    seat.serve(kind)

    def healthy() -> bool:
        return any(
            a.get("id") == agent.agent_id and a.get("status") == "healthy" for a in registry_agents(seat.url)
        )

    wait_for(healthy, timeout=40)
    return seat.url


def test_mcp_meshs_registry_matches_our_agents_by_schema(
    seat: RegistrySeat, mesh_caption: MeshAgent, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = on(seat, "mcp-mesh", mesh_caption)
    ours = {"MCP_MESH_REGISTRY_URL": url, "MCP_MESH_HEALTH_INTERVAL": "1"}
    with (
        run_agent("tests.apps.schema_caption_app", env=ours),
        run_agent("tests.apps.schema_label_app", env=ours),
        run_agent("tests.apps.schema_viewer_app", env=ours) as viewer,
    ):
        # label-provider is the newest provider of `caption`: without the schema stage it would be chosen
        shown = wait_for(
            lambda: (r := call(viewer, "show", {"text": "cat"})) and not r["isError"] and text(r), timeout=40
        )
        assert shown in ("a picture of cat (0.9)", "mesh sees cat (0.8)")

        resolved = wait_for(lambda: events(url, type="dependency_resolved", function_name="show"), 20)
        stage = schema_stage(resolved[0])  # type: ignore[index]
        (evicted,) = [e for e in stage["evicted"] if e["id"].startswith("label-provider-")]
        assert evicted["reason"] == "SchemaIncompatible"
        assert evicted["details"]["reasons"] == [{"field": "text", "kind": "missing_field", "path": "text"}]
        assert evicted["details"]["consumer_hash"] == canonical_schema(Caption).hash

        # our provider and mcp-mesh's publish one hash for one model, so both qualify (same hash: no diff)
        schemas = loopback.get(url + "/schemas", timeout=5).json()["schemas"]
        origins = {entry["hash"] for entry in schemas}
        assert canonical_schema(Caption).hash in origins
        assert len([k for k in stage["kept"] if k.endswith(":caption")]) == 2

        # an unmatched dependency: the refusal carries MCP Mesh's recorded reason (from its /events)
        def refused() -> str | None:
            result = call(viewer, "show_rating", {"text": "cat"})
            message = text(result)
            return message if result["isError"] and "evicted by schema" in message else None

        message = str(wait_for(refused, timeout=30))
        assert "no provider of `caption` with tags -sloppy, schema subset: 1 evicted by tags (" in message
        assert "missing stars" in message

        # mesh explain reads MCP Mesh's audit trail
        explain = ["explain", "viewer", "caption", "--registry-url", url]
        shown_cli = run_cli_in_process(explain, monkeypatch)
        assert shown_cli.returncode == 0, shown_cli.stderr
        assert "tool show, dependency 0" in shown_cli.stdout
        # MCP Mesh's listing leaves unresolved slots out: their traces come from its events
        assert (
            "tool show_rating, dependency 0\n  no provider of `caption` with tags -sloppy" in shown_cli.stdout
        )
        assert any(
            line.startswith("schema ") and "SchemaIncompatible" in line and "missing text" in line
            for line in shown_cli.stdout.splitlines()
        )
        reports = json.loads(run_cli_in_process([*explain, "--json"], monkeypatch).stdout)["explanations"]
        assert {r["source"] for r in reports} == {"events"}


def test_our_registry_matches_mcp_mesh_agents_by_schema(seat: RegistrySeat, mesh_caption: MeshAgent) -> None:
    url = on(seat, "embedded", mesh_caption)
    with (
        run_mesh_python_agent(AGENTS_DIR / "schema_label.py", url),
        run_mesh_python_agent(AGENTS_DIR / "schema_viewer.py", url) as viewer,
    ):
        answer = wait_for(
            lambda: (
                (r := viewer.call_tool("view", {"text": "cat"}).get("result"))
                and "mesh sees cat" in str(r)
                and r
            ),
            timeout=40,
        )
        assert "confidence" in str(answer)
        (event,) = events(url, type="dependency_resolved", function_name="view")[:1]
        assert event["agent_name"] == "mesh-viewer"
        assert event["data"]["spec"]["schema_mode"] == "subset"
        stage = schema_stage(event)
        assert [k.split(":")[1] for k in stage["kept"]] == ["caption"]
        (evicted,) = stage["evicted"]
        assert evicted["id"].endswith(":label")
        assert evicted["details"]["reasons"] == [{"field": "text", "kind": "missing_field", "path": "text"}]
        # mcp-mesh's consumer hash is ours for the same model
        assert evicted["details"]["consumer_hash"] == canonical_schema(Caption).hash
        assert event["data"]["chosen"]["function_name"] == "caption"
