"""The version is written once, in pyproject.toml; everything that shows it reads the package metadata."""

from __future__ import annotations

import importlib.metadata
import re
import tomllib

import httpx2

import mesh_framework
from mesh_framework.callbacks.connection import McpConnection
from mesh_framework.catalog import HttpDefinition
from mesh_framework.registry import RegistryServer
from tests.agents import ROOT, run_cli

PROJECT_VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def test_the_version_is_the_installed_package_s() -> None:
    assert mesh_framework.__version__ == importlib.metadata.version("mesh-framework") == PROJECT_VERSION


def test_no_module_keeps_a_copy_of_it() -> None:
    literal = re.compile(rf"""["']{re.escape(PROJECT_VERSION)}["']""")
    copies = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sorted((ROOT / "mesh_framework").rglob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if literal.search(line)
    ]
    assert copies == []


def test_mesh_version_prints_it() -> None:
    done = run_cli(["--version"])
    assert (done.returncode, done.stdout) == (0, f"mesh {PROJECT_VERSION}\n")


async def test_the_registry_and_the_mcp_client_report_it() -> None:
    async with RegistryServer("127.0.0.1", 0) as registry, httpx2.AsyncClient(trust_env=False) as http:
        health = (await http.get(registry.url + "/health")).json()
    assert health["version"] == PROJECT_VERSION
    connection = McpConnection("notes", HttpDefinition(url="http://127.0.0.1:9/mcp"))
    assert connection.client_info == {"name": "mesh-framework", "version": PROJECT_VERSION}
