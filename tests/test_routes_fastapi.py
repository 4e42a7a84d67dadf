"""A user's own FastAPI app served by a real agent process: components and mesh dependencies given to its
handlers through `Depends` (`mesh_framework.fastapi`), registered and resolved like `@mesh_route` routes."""

from __future__ import annotations

from typing import Any

import httpx2
import pytest

from mesh_framework import MeshApplication
from mesh_framework.testing import mesh_client
from tests.agents import run_agent, run_registry, wait_until

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
