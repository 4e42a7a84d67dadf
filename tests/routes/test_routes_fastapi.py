"""A user's own FastAPI app served by a real agent process: components and mesh dependencies given to its
handlers through `Depends` (`mesh_framework.fastapi`), registered and resolved like `@mesh_route` routes;
its lifespan runs when the agent starts and stops."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import httpx2
import pytest

from mesh_framework import MeshApplication
from mesh_framework.routes.web import MountedAppError
from mesh_framework.testing import mesh_client
from tests.agents import ROOT, run_agent, run_cli, run_registry, wait_until

pytestmark = pytest.mark.timeout(60)

LIST_TOOLS = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
MCP_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def test_a_served_fastapi_app_gets_components_and_answers_503_without_providers() -> None:
    with (
        run_agent("tests.apps.routes_fastapi_app") as agent,
        httpx2.Client(trust_env=False, timeout=10) as http,
    ):
        assert http.get(agent.base_url + "/fa/hello/ada").json() == {"greeting": "Hello ada!"}
        missing = http.get(agent.base_url + "/fa/shout?text=hi")
        assert missing.status_code == 503
        assert missing.json() == {"error": "dependency_unavailable", "capability": "upper"}
        assert http.get(agent.base_url + "/fa/optional").json() == {"injected": False}
        assert http.get(agent.base_url + "/fa/nothing").status_code == 404
        # FastAPI's own validation and OpenAPI, without the injected parameters
        assert http.get(agent.base_url + "/fa/hello/ada", params={}).status_code == 200
        openapi = http.get(agent.base_url + "/openapi.json").json()
        parameters = openapi["paths"]["/fa/shout"]["get"]["parameters"]
        assert [p["name"] for p in parameters] == ["text"]
        # the MCP endpoint is untouched
        assert '"upper"' in http.post(agent.mcp_url, json=LIST_TOOLS, headers=MCP_HEADERS).text


def test_the_fastapi_routes_dependencies_resolve_through_the_registry() -> None:
    with run_registry() as registry:
        env = {"MCP_MESH_REGISTRY_URL": registry.base_url, "MCP_MESH_HEALTH_INTERVAL": "1"}
        with (
            run_agent("tests.apps.routes_fastapi_app", env=env) as agent,
            httpx2.Client(trust_env=False, timeout=10) as http,
        ):

            def shouted() -> Any:
                answer = http.get(agent.base_url + "/fa/shout?text=hi")
                return answer.json() if answer.status_code == 200 else None

            assert wait_until(shouted, timeout=15) == {"text": "HI"}  # its own tool, in process
            agents = http.get(registry.base_url + "/agents").json()["agents"]
            [entry] = [a for a in agents if a["name"] == "fastweb"]
            assert entry["agent_type"] == "mcp_agent"
            rows = {r["function_name"]: r for r in entry["dependency_resolutions"]}
            assert rows["GET:/fa/shout"]["status"] == "available"
            assert rows["GET:/fa/missing"]["status"] == "unresolved"
            assert http.get(agent.base_url + "/fa/missing").json()["capability"] == "nowhere"


async def test_a_subclass_of_fastapi_is_served_too(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "own_fastapi"
    package.mkdir()
    (package / "__init__.py").write_text(
        "from fastapi import FastAPI\n"
        "from mesh_framework import mesh_agent\n"
        "from mesh_framework.fastapi import serve\n\n"
        "@mesh_agent(name='own')\nclass Own:\n    pass\n\n"
        "class ShopApi(FastAPI):\n    pass\n\n"
        "api = serve(ShopApi(), path='/shop')\n\n"
        "@api.get('/ping')\ndef ping() -> dict[str, bool]:\n    return {'pong': True}\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    app = MeshApplication.load("own_fastapi", environ={})
    async with mesh_client(app) as client:
        assert (await client.http.get("/shop/ping")).json() == {"pong": True}


def test_the_served_apps_lifespan_runs_when_the_agent_starts_and_stops() -> None:
    with (
        run_agent("tests.apps.fastapi_lifespan_app") as agent,
        httpx2.Client(trust_env=False, timeout=10) as http,
    ):
        # the first request already sees what the app's start-up gave its requests
        assert http.get(agent.base_url + "/inv/connection").json() == {"connection": "db-1"}
        started = agent.text().index("inventory lifespan: started")
        assert started < agent.text().index("serving http")  # before the agent said it serves
        assert "inventory lifespan: stopped" not in agent.text()
    assert agent.process.returncode == 0
    wait_until(lambda: "inventory lifespan: stopped" in agent.text(), timeout=5)
    assert agent.text().index("inventory lifespan: stopped") > agent.text().index("stopping:")


TWO_APPS = """
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from mesh_framework import mesh_agent
from mesh_framework.fastapi import serve

events = []


@mesh_agent(name="two")
class Two:
    pass


def recorded(name, fails=False):
    @asynccontextmanager
    async def lifespan(app):
        events.append(name + " started")
        if fails:
            raise RuntimeError("no database at db:5432")
        yield {"name": name}
        events.append(name + " stopped")

    return lifespan


first = serve(FastAPI(lifespan=recorded("first")), path="/first")
second = serve(FastAPI(lifespan=recorded("second", fails=FAILS)), path="/second")


@first.get("/name")
def first_name(request: Request):
    return {"name": request.state.name, "events": events}


@second.get("/name")
def second_name(request: Request):
    return {"name": request.state.name}
"""


def two_apps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, fails: bool) -> str:
    name = "two_apps_failing" if fails else "two_apps"
    (tmp_path / name).mkdir()
    (tmp_path / name / "__init__.py").write_text(f"FAILS = {fails}\n{TWO_APPS}")
    monkeypatch.syspath_prepend(str(tmp_path))
    return name


async def test_mounted_apps_start_in_mount_order_and_stop_in_reverse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = MeshApplication.load(two_apps(tmp_path, monkeypatch, fails=False), environ={})
    async with mesh_client(app) as client:
        first = (await client.http.get("/first/name")).json()
        assert first == {"name": "first", "events": ["first started", "second started"]}
        assert (await client.http.get("/second/name")).json() == {"name": "second"}  # each its own state
    events = sys.modules["two_apps"].events
    assert events == ["first started", "second started", "second stopped", "first stopped"]


async def test_a_failing_start_up_stops_the_agent_naming_the_app(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = MeshApplication.load(two_apps(tmp_path, monkeypatch, fails=True), environ={})
    with pytest.raises(MountedAppError) as failed:
        async with mesh_client(app):
            raise AssertionError("the agent served although a mounted app failed to start")
    assert str(failed.value) == (
        "the FastAPI app two_apps_failing.second (mounted at /second) failed to start: "
        "RuntimeError: no database at db:5432"
    )
    # the app started before it is stopped again
    assert sys.modules["two_apps_failing"].events == ["first started", "second started", "first stopped"]


def test_mesh_run_says_which_mounted_app_failed_to_start(tmp_path: Path) -> None:
    (tmp_path / "broken_start").mkdir()
    (tmp_path / "broken_start" / "__init__.py").write_text(f"FAILS = True\n{TWO_APPS}")
    done = run_cli(["run", "broken_start", "--port", "0"], env={"PYTHONPATH": f"{tmp_path}:{ROOT}"})
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines()[-1] == (
        "mesh run: broken_start: the FastAPI app broken_start.second (mounted at /second) failed to "
        "start: RuntimeError: no database at db:5432"
    )
    assert "serving http" not in done.stderr
