"""The extension points the health, metrics, console and web-route features plug into, used by an app as the
features use them: an app's `CallObserver` sees the calls the agent serves beside the metrics (hooks joined
once: one observer's hook is handed over as is), an app's `AgentHealth` bean is the verdict the mesh runtime
registers with, the probes, `/metrics`, `/status` and the web routes are served in that order (a static
folder mounted at / last), and an app without web routes loads none of their modules."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from mesh_framework import MeshApplication
from mesh_framework.extension import CallObserver, join_observers
from mesh_framework.testing import mesh_client

from ..forked_imports import Forks, forks
from .test_lean_features import MINIMAL, PLAIN_TOOL, built_modules

pytestmark = pytest.mark.timeout(60)

APP = """
from mesh_framework import bean, configuration, mesh_agent, mesh_route, mesh_tool
from mesh_framework.extension import AgentHealth, CallObserver

SEEN = []


@mesh_agent(name="points-app", version="1.0.0")
class PointsApp:
    pass


@mesh_tool(capability="add")
async def add(a: int, b: int) -> int:
    return a + b


@mesh_route("/api/hello")
async def hello() -> dict:
    return {"hello": "web"}


class Seen(CallObserver):
    def __init__(self) -> None:
        self.tool_call = lambda tool, is_error, seconds: SEEN.append((tool, is_error))


class Degraded(AgentHealth):
    async def status(self) -> str:
        return "degraded"


@configuration
class Points:
    @bean
    def seen(self) -> CallObserver:
        return Seen()

    @bean(order=-1)
    def degraded(self) -> AgentHealth:
        return Degraded()
"""


@pytest.fixture
def points_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    (tmp_path / "points_app.py").write_text(textwrap.dedent(APP))
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "points_app"
    sys.modules.pop("points_app", None)


def test_one_observer_s_hook_is_handed_over_as_is_and_several_are_called_in_order() -> None:
    calls: list[str] = []

    class First(CallObserver):
        def __init__(self) -> None:
            self.tool_call = lambda *args: calls.append(f"first {args}")

    class Second(CallObserver):
        def __init__(self) -> None:
            self.tool_call = lambda *args: calls.append(f"second {args}")
            self.llm_usage = lambda *args: calls.append("usage")

    first, second = First(), Second()
    none = join_observers([])
    assert none.tool_call is None and none.proxy_call is None and none.registry_request is None
    assert join_observers([first]).tool_call is first.tool_call  # no call in between on the hot path
    joined = join_observers([first, second])
    assert joined.llm_usage is second.llm_usage and joined.proxy_failover is None
    assert joined.tool_call is not None
    joined.tool_call("add", False, 0.5)
    assert calls == ["first ('add', False, 0.5)", "second ('add', False, 0.5)"]


async def test_an_app_s_observer_and_health_verdict_take_part(points_app: str) -> None:
    app = MeshApplication.load(points_app, cli={"registry.enabled": False}, environ={})
    seen: list[tuple[str, bool]] = sys.modules[points_app].SEEN
    async with mesh_client(app) as client:
        assert await client.call_ok("add", {"a": 1, "b": 2}) == 3
        assert seen == [("add", False)]
        scraped = (await client.http.get("/metrics")).text  # the metrics saw the same call
        assert 'mesh_tool_calls_total{tool="add"} 1.0' in scraped
        runtime = app.container.mesh_runtime()
        assert await runtime.health.status() == "degraded"  # the app's verdict comes first (order -1)
        assert (await client.http.get("/api/hello")).json() == {"hello": "web"}
        assert len(runtime.routes) == 1  # the route's wrapper: its slots kept current by the runtime


async def test_the_probes_metrics_and_status_come_before_the_web_routes_and_a_static_folder_last(
    points_app: str, tmp_path: Path
) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<p>site</p>")
    cli = {"registry.enabled": False, "web.static": [{"path": "/", "directory": str(site)}]}
    app = MeshApplication.load(points_app, cli=cli, environ={})
    async with mesh_client(app) as client:
        routes = [getattr(r, "path", "") for r in app.container.asgi_app().web.routes]
        assert routes[:5] == ["/health", "/ready", "/livez", "/startupz", "/metrics"]
        assert routes.index("/status") < routes.index("/api/hello") < routes.index("")  # "": the mount at /
        assert (await client.http.get("/health")).json()["status"] == "UP"
        assert (await client.http.get("/")).text == "<p>site</p>"


@pytest.fixture(scope="module")
def interpreter() -> Iterator[Forks]:
    """One process that imported the framework, forked for each app whose modules a test reads."""
    with forks() as forking:
        yield forking


def test_an_app_without_web_routes_loads_none_of_their_modules_nor_the_console_s(
    interpreter: Forks, tmp_path: Path
) -> None:
    modules = built_modules(interpreter, tmp_path, "lean_no_web", PLAIN_TOOL, MINIMAL)
    deciding = {"mesh_framework.routes.route_marks", "mesh_framework.routes.auto_configuration"}
    assert [m for m in modules if m.startswith("mesh_framework.routes.") and m not in deciding] == []
    assert "mesh_framework.console_feed.push" not in modules
    route = (
        '\nfrom mesh_framework import mesh_route\n\n@mesh_route("/hi")\nasync def hi() -> dict:\n'
        "    return {}\n"
    )
    with_route = built_modules(interpreter, tmp_path, "lean_web", PLAIN_TOOL + route, MINIMAL)
    assert "mesh_framework.routes.web" in with_route
