"""The starter app's `jot` tool uses the `notes` server of its catalog (config/mcp-servers.json)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from mesh_framework import MeshApplication
from mesh_framework.testing import mesh_client


async def test_jot_keeps_notes_in_the_catalog_server(monkeypatch: pytest.MonkeyPatch) -> None:
    # The catalog starts `python -m starter_app.servers.notes`: the venv python, as if it were activated.
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    app = MeshApplication.load("starter_app", environ={})
    assert app.container.mcp_catalog().contains("notes")
    async with mesh_client(app) as client:
        first = await client.call_tool("jot", {"text": "buy milk"})
        second = await client.call_tool("jot", {"text": "call Ada"})
    assert first["structuredContent"] == {"result": ["buy milk"]}
    assert second["structuredContent"] == {"result": ["buy milk", "call Ada"]}
