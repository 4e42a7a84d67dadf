"""What a process imports is what it uses: the `mesh` command's quick commands load no settings models, HTTP
client library or agent machinery, and an agent loads a feature's packages only when the app uses it.

Each check runs the real entry point in a fresh interpreter with `-X importtime`, which names every module
the process imported (timings are not looked at: start-up times are benchmarks, not tests).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from ..agents import ROOT, run_registry

# Never needed to print help or read the registry's listing.
AGENT_MACHINERY = {
    "asyncio",
    "dependency_injector",
    "httpx2",
    "jinja2",
    "mcp",
    "mesh_framework.app",
    "mesh_framework.config.settings",
    "opentelemetry",
    "pydantic",
    "pydantic_settings",
    "rich",
    "starlette",
    "uvicorn",
    "yaml",
}
# Loaded where they are first used, never by `import mesh_framework.app`: an agent is loaded, built and
# answers its first request without them.
LOADED_ON_USE = {
    # joining the mesh (MeshRuntime.start), once the agent serves
    "mesh_framework.mesh.heartbeat",
    "mesh_framework.mesh.subscription",
    "mesh_framework.mesh.unresolved",
    "mesh_framework.mesh.registration",
    "mesh_framework.mesh.route_registration",
    "mesh_framework.mesh.topology",
    "mesh_framework.mesh.dispatcher",
    # a dependency's proxy, once the registry resolves one; outbound identities, once something calls out
    "mesh_framework.mesh.proxy",
    "mesh_framework.mesh.transport",
    "mesh_framework.mesh.direct_http",
    "mesh_framework.mesh.authenticated",
    "mesh_framework.security.outbound",
    "mesh_framework.security.client_credentials",
    "mesh_framework.security.credentials",
}
IMPORTED = re.compile(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)", re.MULTILINE)


def mesh_imports(*args: str, env: Mapping[str, str] | None = None) -> tuple[set[str], str]:
    """Run `mesh ARGS` (`python -m mesh_framework.cli`) without any setting in its environment; the
    modules it imported and its stdout."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("MESH_", "MCP_MESH_"))}
    environ.update(env or {})
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "mesh_framework.cli", *args],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return set(IMPORTED.findall(done.stderr)), done.stdout


def test_mesh_help_loads_the_parser_only() -> None:
    modules, out = mesh_imports("--help")
    assert "mesh run" not in out and "COMMAND" in out
    assert not modules & AGENT_MACHINERY
    assert not modules & {"logging", "ssl", "dataclasses", "mesh_framework.scaffold.project"}
    outside_cli = {
        m for m in modules if m.startswith("mesh_framework.") and not m.startswith("mesh_framework.cli")
    }
    assert outside_cli <= {
        "mesh_framework._lazy",
        "mesh_framework.errors",
        "mesh_framework.scaffold",
        "mesh_framework.scaffold.command",
    }


def test_importing_the_app_loads_nothing_used_only_once_it_serves() -> None:
    """`import mesh_framework.app` (what `mesh run` and every test of an agent begin with) loads neither
    the mesh's joining machinery nor the proxies of dependencies: they load where they are first used."""
    code = "import sys\nfrom mesh_framework.app import MeshApplication\nprint(' '.join(sys.modules))\n"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    modules = set(done.stdout.split())
    assert "mesh_framework.mesh.runtime" in modules  # the container's bean types are loaded
    assert sorted(modules & LOADED_ON_USE) == []


def test_a_command_loads_its_own_group_only() -> None:
    """`mesh run` (an agent's start) parses with the run group's parser alone: no other command's module.
    (The groups are imported by `importlib.import_module`, which `-X importtime` does not report.)"""
    code = (
        "import contextlib, io, sys\n"
        "from mesh_framework.cli import main\n"
        "with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()) as out:\n"
        "    main(['run', '--help'])\n"
        "assert 'usage: mesh run' in out.getvalue() and '--reload' in out.getvalue()\n"
        "print(' '.join(sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    modules = set(done.stdout.split())
    groups = {m for m in modules if m.startswith(("mesh_framework.cli.", "mesh_framework.scaffold"))}
    assert "mesh_framework.cli.run" in groups
    assert not groups & {
        "mesh_framework.cli.agents",
        "mesh_framework.cli.call",
        "mesh_framework.cli.catalog_commands",
        "mesh_framework.cli.config_command",
        "mesh_framework.cli.install",
        "mesh_framework.cli.shell_completion",
        "mesh_framework.scaffold.command",
    }


def test_a_lone_group_parses_as_the_whole_parser() -> None:
    from mesh_framework.cli import entry

    def commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
        found = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        return dict(found.choices)

    whole = commands(entry.build_parser())
    for name, parser in whole.items():
        alone = commands(entry.build_parser(name))
        assert name in alone and set(alone) < set(whole)
        assert alone[name].format_help() == parser.format_help()


def test_mesh_list_reads_the_registry_without_loading_settings() -> None:
    with run_registry() as registry:
        modules, out = mesh_imports("list", "--registry-url", registry.base_url)
        assert f"no agents registered at {registry.base_url}" in out
        assert not modules & AGENT_MACHINERY
        # a setting in the environment is honoured: the settings are loaded then
        port = registry.base_url.rpartition(":")[2]
        modules, out = mesh_imports("list", env={"MESH_REGISTRY__EMBEDDED_PORT": port})
        assert f"no agents registered at {registry.base_url}" in out
        assert "pydantic_settings" in modules


def test_an_agent_imports_no_vendor_sdk_before_its_first_call() -> None:
    """The starter app (an LLM tool on OpenAI, catalog servers, jobs) built and ready to serve: the LLM
    vendors' SDKs, the mcp SDK (catalog servers connect on first use), OpenTelemetry (tracing is off, logs
    are text: the framework does not ask for it) and rich (a terminal's output) are not loaded."""
    code = (
        "from mesh_framework.app import MeshApplication\n"
        "MeshApplication.load('starter_app', cli={'registry.enabled': False}).build()\n"
        "from mesh_framework.tracing.otel import api\n"
        "print(api.cache_info().currsize)\n"
    )
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("MESH_", "MCP_MESH_"))}
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    modules = set(IMPORTED.findall(done.stderr))
    assert "mesh_framework.llm.wiring" in modules and "mesh_framework.jobs.service" in modules
    tops = {m.split(".")[0] for m in modules}
    assert not tops & {"openai", "anthropic", "mcp", "rich"}
    # it serves no click commands: their discovery is not loaded (an app with some: test_command_tools_*)
    assert "mesh_framework.command_tools.discovery" not in modules
    # OpenTelemetry's API is loaded by the first span; a library of the dev venv may load it by itself
    assert done.stdout.split() == ["0"]


def test_the_version_is_read_from_the_package_metadata_at_its_first_use() -> None:
    """Finding the installed distribution scans all of `sys.path`: an agent, or the embedded registry it
    starts, reads it only when something shows the version (the registry's `/health`)."""
    code = (
        "from importlib import metadata\n"
        "from starlette.testclient import TestClient\n"
        "from mesh_framework import _version\n"
        "from mesh_framework.app import MeshApplication\n"
        "from mesh_framework.registry.registry_app import build_registry_app\n"
        "from mesh_framework.registry.store import RegistryStore\n"
        "client = TestClient(build_registry_app(RegistryStore(), sweep=False), base_url='http://127.0.0.1')\n"
        "print(_version._installed_version.cache_info().currsize)\n"
        "print(client.get('/health').json()['version'] == metadata.version('mesh-framework'))\n"
        "print(_version._installed_version.cache_info().currsize)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["0", "True", "1"]


def test_the_registry_loads_its_page_and_console_at_their_first_request() -> None:
    """The registry (embedded in the starter app, or `mesh registry`) serves heartbeats without the mesh
    page's and the console's modules; the first request to one of their routes loads them, and the routes
    declared up front (registry_app.UI_ROUTES, CONSOLE_ROUTES) are the ones they make."""
    code = (
        "import sys\n"
        "from starlette.testclient import TestClient\n"
        "from mesh_framework.registry.registry_app import CONSOLE_ROUTES, UI_ROUTES, build_registry_app\n"
        "from mesh_framework.registry.store import RegistryStore\n"
        "app = build_registry_app(RegistryStore(), sweep=False)\n"
        "client = TestClient(app, base_url='http://127.0.0.1')\n"
        "assert client.get('/health').status_code == 200\n"
        "print(sorted(m for m in sys.modules if m.startswith(('mesh_framework.registry.ui', "
        "'mesh_framework.registry.console'))))\n"
        "assert client.get('/ui/tools').status_code == 200\n"
        "assert client.post('/ui/console').status_code == 405\n"
        "print('mesh_framework.registry.console' in sys.modules)\n"
        "from mesh_framework.registry.console import ConsoleBoard, console_routes\n"
        "from mesh_framework.registry.ui import ui_routes\n"
        "store = RegistryStore()\n"
        "made = [*ui_routes(store), *console_routes(store, ConsoleBoard(), token_required=False)]\n"
        "declared = [(path, {*methods, 'HEAD'} if 'GET' in methods else set(methods)) "
        "for path, methods in (*UI_ROUTES, *CONSOLE_ROUTES)]\n"
        "print([(route.path, route.methods) for route in made] == declared)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split("\n")[:3] == ["[]", "True", "True"]


def test_a_registry_without_a_database_loads_no_sqlite(tmp_path: Path) -> None:
    """The embedded registry (no database) serves without SQLite and its persistence modules; a registry
    given a database loads them with its store."""
    code = (
        "import sys\n"
        "from starlette.testclient import TestClient\n"
        "from mesh_framework.registry.registry_app import build_registry_app\n"
        "from mesh_framework.registry.store import RegistryStore\n"
        "client = TestClient(build_registry_app(RegistryStore(), sweep=False), base_url='http://127.0.0.1')\n"
        "assert client.get('/health').status_code == 200\n"
        "sqlite = ('sqlite3', 'mesh_framework.registry.persistence', "
        "'mesh_framework.registry.job_persistence')\n"
        "print(sorted(set(sqlite) & set(sys.modules)))\n"
        f"store = RegistryStore({str(tmp_path / 'registry.db')!r})\n"
        "build_registry_app(store, sweep=False)\n"
        "print(sorted(set(sqlite) & set(sys.modules)))\n"
        "store.close()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == [
        "[]",
        "['mesh_framework.registry.job_persistence', 'mesh_framework.registry.persistence', 'sqlite3']",
    ]
