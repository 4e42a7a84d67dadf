"""Fixtures of the tests against the real MCP Mesh: every module here needs its tools installed
(`scripts/install-mcp-mesh.sh`), and a test gets a registry of its own (`registry`) or shares its module's
(`shared_registry`, for tests that leave the registry as they found it)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .mcp_mesh import MeshRegistry, missing_tools, run_mesh_registry


@pytest.fixture(scope="module", autouse=True)
def installed() -> None:
    missing = missing_tools()
    assert not missing, f"run scripts/install-mcp-mesh.sh first (missing: {', '.join(missing)})"


@pytest.fixture
def registry(tmp_path: Path) -> Iterator[MeshRegistry]:
    """MCP Mesh's registry for this test alone (it may restart or wipe it)."""
    with run_mesh_registry(tmp_path / "registry") as running:
        yield running


@pytest.fixture(scope="module")
def shared_registry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MeshRegistry]:
    """MCP Mesh's registry shared by the tests of one module."""
    with run_mesh_registry(tmp_path_factory.mktemp("registry")) as running:
        yield running
