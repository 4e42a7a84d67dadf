"""The starter app's `jot` tool uses the `notes` server of its catalog (config/mcp-servers.json)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from mesh_framework import MeshApplication
from mesh_framework.testing import mesh_client
from tests.agents import loopback

from ..agents import ROOT, run_mesh

SYSTEM_PYTHON = "#!/bin/sh\necho \"ModuleNotFoundError: No module named 'dependency_injector'\" >&2\nexit 1\n"


def other_python_first(folder: Path) -> str:
    """A PATH whose `python` is another interpreter (a shim failing as a system Python without the
    packages would): what a shell without the activated venv has."""
    for name in ("python", "python3"):
        (folder / name).write_text(SYSTEM_PYTHON)
        (folder / name).chmod(0o755)
    return f"{folder}{os.pathsep}{os.environ.get('PATH', '')}"


async def test_jot_keeps_notes_in_the_catalog_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The catalog starts `python -m starter_app.servers.notes`: the agent's interpreter, whatever PATH says.
    monkeypatch.setenv("PATH", other_python_first(tmp_path))
    app = MeshApplication.load("starter_app", environ={})
    assert app.container.mcp_catalog().contains("notes")
    async with mesh_client(app) as client:
        first = await client.call_tool("jot", {"text": "buy milk"})
        second = await client.call_tool("jot", {"text": "call Ada"})
    assert first["structuredContent"] == {"result": ["buy milk"]}
    assert second["structuredContent"] == {"result": ["buy milk", "call Ada"]}


@pytest.mark.timeout(60)
def test_mesh_run_without_an_activated_venv_serves_jot(tmp_path: Path) -> None:
    # The README's `mesh run starter_app`, with the venv's `mesh` script and no venv on PATH.
    mesh = Path(sys.executable).parent / "mesh"
    env = {"PATH": other_python_first(tmp_path)}
    with run_mesh(["run", "starter_app", "--port", "0"], env=env, mesh=[str(mesh)], cwd=ROOT) as agent:
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}
        body["params"] = {"name": "jot", "arguments": {"text": "buy milk"}}
        result = loopback.post(agent.mcp_url, json=body, timeout=30).json()["result"]
    assert result.get("isError") is not True, result
    assert result["structuredContent"] == {"result": ["buy milk"]}
