"""The MCP server catalog, its callbacks and the LLM are auto-configurations gated on what the app declares:
settings naming servers, or a component asking for the catalog, its callbacks or the LLM provider service
by type (which it then gets, made on first use); an app that does neither defines none of their beans and
`mesh beans` says why. The catalog's problems are still configuration problems reported while the app
loads."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from mesh_framework import ConfigError, MeshApplication
from mesh_framework.cli import main
from mesh_framework.cli.beans_command import bean_report

pytestmark = pytest.mark.timeout(60)

ASKING = """
from mesh_framework import component, mesh_agent, mesh_tool
from mesh_framework.catalog import McpServerCatalog
from mesh_framework.llm.provider import LlmProviderService


@mesh_agent(name="asking")
class Asking:
    pass


@component
class Servers:
    def __init__(self, catalog: McpServerCatalog) -> None:
        self.catalog = catalog


@component
class Models:
    def __init__(self, service: LlmProviderService) -> None:
        self.service = service


@mesh_tool(capability="add")
def add(a: int, b: int) -> int:
    return a + b
"""

PLAIN = """
from mesh_framework import mesh_agent, mesh_tool


@mesh_agent(name="plain")
class Plain:
    pass


@mesh_tool(capability="add")
def add(a: int, b: int) -> int:
    return a + b
"""

MINIMAL = {"registry.enabled": False}


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)  # no config folder of the working directory is read
    yield tmp_path
    for name in ("catalog_asking_app", "catalog_plain_app"):
        sys.modules.pop(name, None)


def load(folder: Path, name: str, source: str, **cli: object) -> MeshApplication:
    (folder / f"{name}.py").write_text(textwrap.dedent(source))
    return MeshApplication.load(name, cli={**MINIMAL, **cli}, environ={})


def test_an_app_naming_no_server_defines_no_catalog_callbacks_or_llm_bean(folder: Path) -> None:
    app = load(folder, "catalog_plain_app", PLAIN)
    report = {b["name"]: b for b in bean_report(app)["beans"]}
    for gate, reason in (
        ("catalog_auto_configuration", "no MCP server in the settings, nothing asks for the catalog"),
        ("callbacks_auto_configuration", "no MCP server in the settings, nothing asks for the catalog"),
        ("llm_used", "no @mesh_llm tool or route, no LLM provider"),
    ):
        assert report[gate]["defined"] is False
        assert report[gate]["conditions"][0]["reason"] == reason
    for name in ("mcp_catalog", "mcp_tool_callbacks", "gateway", "llm_agents", "llm_provider_service"):
        assert name not in app.container.providers


def test_a_component_asking_by_type_gets_the_catalog_and_the_provider_service(folder: Path) -> None:
    app = load(folder, "catalog_asking_app", ASKING)
    report = {b["name"]: b for b in bean_report(app)["beans"]}
    reason = report["mcp_catalog"]["conditions"][0]["reason"]  # its auto-configuration's condition
    assert reason == "component Servers asks for McpServerCatalog (parameter 'catalog')"
    assert report["llm_provider_service"]["conditions"][0]["reason"] == (
        "component Models asks for LlmProviderService (parameter 'service')"
    )
    app.build()
    servers, models = app.container.servers(), app.container.models()
    assert list(servers.catalog) == []  # the settings name no server: an empty catalog
    assert servers.catalog is app.container.mcp_catalog()
    assert type(models.service).__name__ == "LlmProviderService"
    assert "gateway" not in app.container.providers  # mcp.gateway is empty


def test_a_server_the_gateway_names_outside_the_catalog_stops_loading(folder: Path) -> None:
    servers = {"notes": {"command": sys.executable, "args": ["-c", "pass"]}}
    with pytest.raises(ConfigError) as raised:
        load(folder, "catalog_plain_app", PLAIN, **{"mcp.servers": servers, "mcp.gateway": ["notes", "web"]})
    assert raised.value.problems == [
        "mcp.gateway = ['web'] (from command line (--gateway)): no such MCP server in the catalog "
        "(it has: notes); add it to mcp.servers or a catalog file"
    ]


def test_mesh_catalog_of_an_app_naming_no_server(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (folder / "catalog_plain_app.py").write_text(textwrap.dedent(PLAIN))
    assert main(["catalog", "list", "catalog_plain_app"]) == 0
    assert capsys.readouterr().out.strip() == (
        "no MCP servers in the catalog; add them to mcp.servers or a catalog file (mcp.catalog)"
    )
