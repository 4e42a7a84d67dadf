"""The pytest plugin (entry point `pytest11`, active wherever mesh_framework is installed).

Fixtures, all synchronous (no async test set-up needed):

- `mesh_app`: the application named by the `mesh_app` ini option (`[tool.pytest.ini_options] mesh_app =
  "my_package"`) or a `mesh_app_name` fixture, loaded with the `test` profile when
  `application-test.yaml` exists; `@pytest.mark.mesh_settings(**{"greeting.template": "Hi"})` and the
  `mesh_settings` dict set single keys; `@pytest.mark.mesh_override(Type, value)` replaces a bean.
- `mesh_client`: an in-process MCP client of `mesh_app` (no sockets); `call_ok` fails with the tool, its
  arguments and its error.
- `stub_tool("add", returns=5)` / `stub_tool("add", side_effect=fn)`: a recording stand-in in every
  dependency slot of that capability.
- `stub_llm([turns...])`: a `ScriptedLlm` as the model of every LLM tool (before the first call).
- `mesh_cluster(["app_a", "app_b"])`: real agent processes and a registry, resolved before use.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:  # the framework is imported by the fixtures, not when pytest loads the plugin
    from ..app import MeshApplication
    from ..llm.scripted import ScriptedLlm, Turn
    from .client import SyncMeshClient
    from .cluster import MeshCluster
    from .stubs import StubbingClient, StubTool

__all__ = ["pytest_addoption", "pytest_configure"]

HERMETIC_PREFIXES = ("MESH_", "MCP_MESH_")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini("mesh_app", "module holding the @mesh_agent the mesh_app fixture loads", default="")
    parser.addini(
        "mesh_profiles", "profiles mesh_app activates (default: test, when its file exists)", default=""
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "mesh_settings(**settings): dotted settings for mesh_app")
    config.addinivalue_line("markers", "mesh_override(target, value): replace a bean of mesh_app")


@pytest.fixture
def mesh_app_name(request: pytest.FixtureRequest) -> str:
    """The application module; set `mesh_app` in the pytest ini options, or override this fixture."""
    name = str(request.config.getini("mesh_app") or "")
    if not name:
        raise pytest.UsageError(
            'mesh_app: name your application: `mesh_app = "my_package"` under [tool.pytest.ini_options] '
            "in pyproject.toml, or a `mesh_app_name` fixture in conftest.py"
        )
    return name


@pytest.fixture
def mesh_settings() -> dict[str, Any]:
    """Dotted settings (`{"server.port": 0}`) applied above every other layer when `mesh_app` loads."""
    return {}


@pytest.fixture
def mesh_app(
    request: pytest.FixtureRequest, mesh_app_name: str, mesh_settings: dict[str, Any]
) -> Iterator[MeshApplication]:
    settings = dict(mesh_settings)
    for marker in reversed(list(request.node.iter_markers("mesh_settings"))):
        settings.update(marker.kwargs)
    environ = {k: v for k, v in os.environ.items() if not k.startswith(HERMETIC_PREFIXES)}
    profiles = [p.strip() for p in str(request.config.getini("mesh_profiles")).split(",") if p.strip()]
    app = _load(mesh_app_name, cli=settings, environ=environ, profiles=profiles or None)
    if not profiles and _has_test_profile(app):
        app = _load(mesh_app_name, cli=settings, environ=environ, profiles=["test"])
    with contextlib.ExitStack() as overrides:
        for marker in request.node.iter_markers("mesh_override"):
            target, value = marker.args
            overrides.enter_context(app.override(target, value))
        yield app


def _load(name: str, **options: Any) -> MeshApplication:
    """The application, or the test failed with the settings/wiring problems as `mesh run` lists them
    (each with its key, value and origin), not the framework's traceback."""
    from ..app import MeshApplication
    from ..errors import ConfigError, WiringError

    try:
        return MeshApplication.load(name, **options)
    except (ConfigError, WiringError) as exc:
        problem = f"mesh_app '{name}': {exc}"
    pytest.fail(problem, pytrace=False)  # outside `except`: pytest would show the chained error too


def _has_test_profile(app: MeshApplication) -> bool:
    folder = app.loaded.files[0].parent if app.loaded.files else None
    return folder is not None and any(
        (folder / f"application-test{ext}").is_file() for ext in (".yaml", ".yml")
    )


@pytest.fixture
def mesh_client(mesh_app: MeshApplication) -> Iterator[SyncMeshClient]:
    from .stubs import StubbingClient

    client = StubbingClient(mesh_app)
    try:
        yield client
    finally:
        client.close()


@pytest.fixture
def stub_tool(mesh_client: StubbingClient) -> Callable[..., StubTool]:
    from .stubs import StubTool

    def make(capability: str, **behaviour: Any) -> StubTool:
        stub = StubTool(capability, **behaviour)
        mesh_client.stubs.append(stub)
        if mesh_client.built:
            mesh_client._fill(stub)
        return stub

    return make


@pytest.fixture
def stub_llm(
    mesh_app: MeshApplication, mesh_client: StubbingClient
) -> Iterator[Callable[[Sequence[Turn]], ScriptedLlm]]:
    from ..llm.model import LlmModel
    from ..llm.scripted import ScriptedLlm

    with contextlib.ExitStack() as overrides:

        def make(turns: Sequence[Turn]) -> ScriptedLlm:
            if mesh_client.built:
                raise AssertionError("stub_llm(...) must come before the first call of mesh_client")
            model = ScriptedLlm(turns)
            overrides.enter_context(mesh_app.override(LlmModel, model))
            return model

        yield make


@pytest.fixture
def mesh_cluster() -> Iterator[Callable[..., MeshCluster]]:
    from .cluster import MeshCluster

    clusters: list[MeshCluster] = []

    def make(apps: Sequence[str], **options: Any) -> MeshCluster:
        cluster = MeshCluster(apps, **options)
        clusters.append(cluster)
        cluster.start()
        return cluster

    try:
        yield make
    finally:
        for cluster in clusters:
            cluster.close()
