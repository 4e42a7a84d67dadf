"""The core's extension points (mesh_framework.extension), used by an installed package's auto-configuration
as the framework's own features use them: a plan checked while the app loads, tools, routes behind the edge,
a hook once built, a lifecycle around serving; `@conditional` and `@imports` keep the package's heavy module
unloaded for an app that does not use it; `@bean(lazy=True)` is made on first use."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from mesh_framework import MeshApplication, WiringError
from mesh_framework.cli.beans_command import bean_report
from mesh_framework.testing import mesh_client

pytestmark = pytest.mark.timeout(60)

PACKAGE = """
from mesh_framework import bean, conditional, configuration, imports


def _wants_points(context):
    wanted = context.settings.model_extra.get("points") if context.settings.model_extra else None
    return (bool(wanted), "points is set" if wanted else "points is not set")


@configuration
@conditional(_wants_points, "the app sets points")
@imports("points_extra.heavy:PointsBeans")
class PointsAutoConfiguration:
    pass
"""

HEAVY = """
from starlette.responses import JSONResponse
from starlette.routing import Route

from mesh_framework import bean, configuration
from mesh_framework.extension import (
    AgentInitializer, HttpSurface, LoadPlan, ScannedApp, ServingLifecycle, ToolSource,
)
from mesh_framework.tools.builder import plan_tool
from mesh_framework.tools.wrapper_registry import MeshToolWrapperRegistry

EVENTS = []


class PointsPlan(LoadPlan):
    def __init__(self, app):
        self.tools = sorted(p.name for p in app.tool_plans)
        extra = app.settings.model_extra.get("points") or {}
        self.problems = [f"points.fail: {extra['fail']}"] if extra.get("fail") else []


class Unused:
    def __init__(self):
        EVENTS.append("unused made")


class Counter:
    def __init__(self):
        EVENTS.append("counter made")
        self.count = 0


class PointsTools(ToolSource):
    def add_tools(self, registry):
        EVENTS.append(f"tools added after {sorted(w.name for w in registry)}")


class Started(ServingLifecycle):
    async def start(self):
        EVENTS.append("started")

    async def stop(self):
        EVENTS.append("stopped")


class Built(AgentInitializer):
    def initialize(self, agent):
        EVENTS.append(f"built {agent.settings.agent.name}")


@configuration
class PointsBeans:
    @bean
    def points_plan(self, app: ScannedApp) -> PointsPlan:
        return PointsPlan(app)

    @bean(lazy=True)
    def unused(self) -> Unused:
        return Unused()

    @bean(lazy=True)
    def counter(self) -> Counter:
        return Counter()

    @bean
    def points_tools(self) -> ToolSource:
        return PointsTools()

    @bean
    def points_surface(self, plan: PointsPlan, counter: Counter) -> HttpSurface:
        async def points(request):
            counter.count += 1
            return JSONResponse({"tools": plan.tools, "count": counter.count})

        return HttpSurface([Route("/points", points, methods=["GET"])], order=-10)

    @bean
    def points_started(self) -> ServingLifecycle:
        return Started()

    @bean
    def points_built(self) -> AgentInitializer:
        return Built()
"""


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """`points_extra` on the path as an installer leaves a distribution: the package and its `.dist-info`."""
    package = tmp_path / "points_extra"
    package.mkdir()
    (package / "__init__.py").write_text(textwrap.dedent(PACKAGE))
    (package / "heavy.py").write_text(textwrap.dedent(HEAVY))
    info = tmp_path / "points_extra-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: points-extra\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[mesh_framework.auto_configuration]\npoints = points_extra:PointsAutoConfiguration\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for name in [m for m in sys.modules if m.startswith("points_extra")]:
        del sys.modules[name]


def load(environ: dict[str, str]) -> MeshApplication:
    return MeshApplication.load("tests.apps.beans_app", environ=environ)


def test_a_condition_that_does_not_match_leaves_the_imported_module_unloaded(installed: Path) -> None:
    app = load({})
    assert "points_extra.heavy" not in sys.modules
    report = bean_report(app)
    gate = next(b for b in report["beans"] if b["name"] == "points_auto_configuration")
    assert gate["defined"] is False
    assert gate["origin"] == "auto-configuration points (PointsAutoConfiguration, package points-extra)"
    assert gate["conditions"] == [
        {"condition": "@conditional('the app sets points')", "matched": False, "reason": "points is not set"}
    ]


def test_a_load_plan_s_problems_stop_loading_with_the_others(installed: Path) -> None:
    with pytest.raises(WiringError) as caught:
        load({"MESH_POINTS__FAIL": "disk full"})
    assert "points.fail: disk full" in caught.value.problems


async def test_every_extension_point_takes_part(installed: Path) -> None:
    app = load({"MESH_POINTS__ENABLED": "true"})
    heavy = sys.modules["points_extra.heavy"]
    events: list[str] = heavy.EVENTS
    events.clear()
    async with mesh_client(app) as client:
        assert "counter made" in events  # made for the route, which needs it
        added = next(e for e in events if e.startswith("tools added after "))
        assert "whoami" in added  # once the application's tools are in
        assert events.index("built beans-app") < events.index("started")
        answer = await client.http.get("/points")
        assert answer.status_code == 200
        assert answer.json() == {"tools": ["plugins", "whoami", "zone"], "count": 1}
        assert "unused made" not in events  # lazy, and asked for by no one
        app.container.unused()
        assert "unused made" in events
    assert events[-1] == "stopped"
