"""A Typer application exposed as tools (Typer is a test dependency; apps of users bring their own)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from mesh_framework import MeshApplication
from mesh_framework.testing.client import SyncMeshClient


@pytest.fixture(scope="module")
def client() -> Iterator[SyncMeshClient]:
    exposed = ["tests.apps.click_ops.cli:cli", "tests.apps.typer_ops.cli:app"]
    app = MeshApplication.load(
        "tests.apps.click_app", environ={}, cli={"commands.expose": exposed, "commands.background": False}
    )
    client = SyncMeshClient(app)
    try:
        yield client
    finally:
        client.close()


def tool(client: SyncMeshClient, name: str) -> dict[str, Any]:
    return next(t for t in client.list_tools() if t["name"] == name)


def test_typer_commands_are_named_and_described(client: SyncMeshClient) -> None:
    names = {t["name"] for t in client.list_tools()}
    assert {"deploy", "db_run_migrations", "status"} <= names
    deploy = tool(client, "deploy")
    assert deploy["description"] == "Deploy a service."
    props = deploy["inputSchema"]["properties"]
    assert props["service"] == {"type": "string", "description": "Service to deploy"}
    assert props["replicas"] == {"type": "integer", "description": "How many replicas", "default": 2}
    assert props["region"]["enum"] == ["eu", "us"]
    assert props["dry_run"]["type"] == "boolean" and props["dry_run"]["default"] is False
    assert props["tag"]["type"] == "array" and props["tag"]["items"] == {"type": "string"}
    assert deploy["inputSchema"]["required"] == ["service"]


def test_typer_commands_run(client: SyncMeshClient) -> None:
    result = client.call_tool(
        "deploy", {"service": "api", "replicas": 3, "region": "us", "dry_run": True, "tag": ["a", "b"]}
    )
    assert result["isError"] is False, result
    assert result["content"][0]["text"] == "deploy api x3 in us dry_run=True tags=['a', 'b']"
    failed = client.call_tool("db_run_migrations", {"steps": 3})
    assert failed["isError"] is True
    assert failed["content"][0]["text"] == (
        "Command 'app db run-migrations' exited with code 2:\nmigration 1\nmigration 2\nmigration 3"
    )
