"""Suite-wide pytest set-up: the pytester plugin, and the `no_servers` mark.

`no_servers` marks every test of a module that starts no server process: no agent or registry
(`tests.agents.run_agent`, `run_registry`, `run_mesh`), no MCP server from npm (`tests.mcp_servers`), no
MCP Mesh, Node, PostgreSQL or browser; nor runs the project's scripts or installs it (those use `.venv` or
a fresh venv, not the Python running the tests). Those tests need nothing but the Python environment, so
scripts/test.sh runs them on each further supported Python (`pytest -m no_servers`). A module is
classified by the helpers its source names, so a new test module is placed without a list to keep.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

STARTS_SERVERS = re.compile(
    r"\b(run_agent|run_registry|run_mesh|mcp_servers|MESH_PYTHON|NODE|playwright|postgres|bootstrap)\b"
    r"|run\.sh"
)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "no_servers: the test's module starts no server process (tests/conftest.py)"
    )


@cache
def starts_servers(path: Path) -> bool:
    """Whether the test module at `path` names a helper that starts a server process (or runs the
    project's scripts, or installs it)."""
    return bool(STARTS_SERVERS.search(path.read_text()))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if not starts_servers(item.path):
            item.add_marker(pytest.mark.no_servers)
