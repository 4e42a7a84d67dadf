"""A Typer application exposed as tools. Typer is not a dependency of the project: the test borrows the
copy installed with mcp-mesh (scripts/install-mcp-mesh.sh), putting only its packages on the path."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import pytest

from mesh_framework import MeshApplication
from mesh_framework.testing.client import SyncMeshClient

from .agents import ROOT

SITE = sorted((ROOT / ".tools" / "mcp-mesh-venv" / "lib").glob("python3*/site-packages"))


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SyncMeshClient]:
    if not SITE or not (SITE[0] / "typer").is_dir():
        pytest.skip("typer is not installed (scripts/install-mcp-mesh.sh installs it with mcp-mesh)")
    folder = tmp_path_factory.mktemp("typer")
    for package in ("typer", "annotated_doc", "shellingham"):
        if (SITE[0] / package).is_dir():
            (folder / package).symlink_to(SITE[0] / package)
    sys.path.insert(0, str(folder))  # the command's process inherits the agent's import path
    exposed = ["tests.apps.click_ops.cli:cli", "tests.apps.typer_ops.cli:app"]
    app = MeshApplication.load(
        "tests.apps.click_app", environ={}, cli={"commands.expose": exposed, "commands.background": False}
    )
    client = SyncMeshClient(app)
    try:
        yield client
    finally:
        client.close()
        sys.path.remove(str(folder))
        for module in [
            m for m in sys.modules if m == "typer" or m.startswith(("typer.", "tests.apps.typer_ops"))
        ]:
            del sys.modules[module]


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
