"""`MeshService(Type)` in a FastAPI app served by the agent: the handler gets the service's
implementation, its methods are the route's dependencies on the wire, a required method without provider
answers 503 naming its capability (real processes on a registry), and a class that is no service stops
start-up naming the route."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mesh_framework import MeshApplication
from mesh_framework.errors import WiringError
from tests.agents import loopback, run_agent, run_registry, wait_until
from tests.mesh.test_mesh_integration import mesh_env
from tests.routes.test_routes import registered

pytestmark = pytest.mark.timeout(90)


def test_a_service_through_depends_follows_the_mesh() -> None:
    with run_registry() as registry:
        env = mesh_env(registry.base_url)
        with run_agent("tests.apps.fastapi_service_app", env=env) as agent:
            url = agent.base_url + "/api/svc"
            refused = loopback.get(url, params={"text": "hi"}, timeout=10)
            assert refused.status_code == 503
            assert refused.json() == {"error": "dependency_unavailable", "capability": "upper"}
            entry: dict[str, Any] = wait_until(lambda: registered(registry, "fastsvc"), timeout=20)  # type: ignore[assignment]
            assert entry["agent_type"] == "api"
            rows = [r for r in entry["dependency_resolutions"] if r["function_name"] == "GET:/api/svc"]
            assert sorted(r["capability"] for r in rows) == ["upper", "whisper"]
            with run_agent("tests.apps.routes_app", env=env):  # provides `upper`

                def served() -> dict[str, Any] | None:
                    answer = loopback.get(url, params={"text": "hi"}, timeout=10)
                    return answer.json() if answer.status_code == 200 else None  # type: ignore[no-any-return]

                assert wait_until(served, timeout=20) == {
                    "text": "HI",
                    "whisper": "Shouting.whisper cannot be called: no agent currently provides 'whisper' "
                    "(optional method)",
                    "typed": True,
                }

            # the provider left: 503 again, also once the agent asks the registry why (on the event loop)
            def refused_again(path: str) -> bool:
                answer = loopback.get(agent.base_url + path, params={"text": "x"}, timeout=10)
                return answer.status_code == 503 and answer.json()["capability"] == "upper"

            wait_until(lambda: refused_again("/api/svc"), timeout=20)
            for path in ("/api/svc", "/api/tool", "/api/svc"):
                assert refused_again(path)
            assert "RuntimeError" not in agent.text()


APP = """
from typing import Annotated

from fastapi import FastAPI

from mesh_framework import mesh_agent, mesh_service
from mesh_framework.fastapi import MeshService, serve


@mesh_agent(name="badsvc", version="1.0.0")
class BadSvc:
    pass


class Plain:
    async def upper(self, text: str) -> str: ...


@mesh_service
class Unmarked:
    async def upper(self, text: str) -> str: ...


api = serve(FastAPI())


@api.get("/plain")
async def plain(service: Annotated[Plain, MeshService(Plain)]) -> str:
    return "x"


@api.get("/unmarked")
async def unmarked(service: Annotated[Unmarked, MeshService(Unmarked)]) -> str:
    return "x"
"""


@pytest.fixture
def bad_app(tmp_path: Path) -> Iterator[str]:
    (tmp_path / "fastapi_badsvc_app.py").write_text(textwrap.dedent(APP))
    sys.path.insert(0, str(tmp_path))
    yield "fastapi_badsvc_app"
    sys.path.remove(str(tmp_path))
    sys.modules.pop("fastapi_badsvc_app", None)


def test_a_class_that_is_no_service_stops_start_up_naming_the_route(bad_app: str) -> None:
    with pytest.raises(WiringError) as refused:
        MeshApplication.load(bad_app, environ={})
    plain, unmarked = refused.value.problems
    assert plain.startswith("fastapi_badsvc_app.api: route /plain: MeshService(Plain): ")
    assert "is not a service interface; mark the class @mesh_service" in plain
    assert unmarked.startswith("fastapi_badsvc_app.api: route /unmarked: MeshService(Unmarked): ")
    assert "Unmarked.upper" in unmarked and "has no @selector" in unmarked
