"""The starter app's `jot` tool uses the `notes` server of its catalog (config/mcp-servers.json)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mesh_framework import MeshApplication
from mesh_framework.testing import mesh_client


async def test_jot_keeps_notes_in_the_catalog_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The catalog starts `python -m starter_app.servers.notes`. Without an activated venv, `python` on PATH
    # is another interpreter (here a shim that fails as a system Python without the packages would); the
    # catalog's `python` is the agent's own interpreter all the same.
    shim = tmp_path / "python"
    shim.write_text(
        "#!/bin/sh\necho \"ModuleNotFoundError: No module named 'dependency_injector'\" >&2\nexit 1\n"
    )
    shim.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ.get('PATH', '')}")
    app = MeshApplication.load("starter_app", environ={})
    assert app.container.mcp_catalog().contains("notes")
    async with mesh_client(app) as client:
        first = await client.call_tool("jot", {"text": "buy milk"})
        second = await client.call_tool("jot", {"text": "call Ada"})
    assert first["structuredContent"] == {"result": ["buy milk"]}
    assert second["structuredContent"] == {"result": ["buy milk", "call Ada"]}
