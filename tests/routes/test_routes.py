"""Web routes (`@mesh_route`) on real agent processes over HTTP: JSON, bodies, path and query, components,
streams as Server-Sent Events, dependencies resolved through a registry, and bad input. The tests that
join a registry share one; requests go through `tests.agents.loopback` (the polled checks run for seconds)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from tests.agents import (
    AgentProcess,
    forget_agents,
    loopback,
    registered_id,
    run_agent,
    run_registry,
    wait_until,
)

pytestmark = pytest.mark.timeout(90)


@pytest.fixture(scope="module")
def webby() -> Iterator[AgentProcess]:
    """The routes app alone: no registry, so its dependencies stay unresolved."""
    with run_agent("tests.apps.routes_app") as agent:
        yield agent


@pytest.fixture(scope="module")
def module_registry() -> Iterator[AgentProcess]:
    with run_registry() as registry:
        yield registry


@pytest.fixture
def registry(module_registry: AgentProcess) -> AgentProcess:
    """The module's registry, handed to a test with no healthy agent listed: those of earlier tests are
    taken out as a graceful stop would (one a test killed stays healthy until it misses its heartbeats);
    they stay listed as unhealthy."""
    forget_agents(module_registry)
    return module_registry


def get(agent: AgentProcess, path: str, **kwargs: Any) -> httpx2.Response:
    return loopback.get(agent.base_url + path, timeout=10, **kwargs)


def post(agent: AgentProcess, path: str, **kwargs: Any) -> httpx2.Response:
    return loopback.post(agent.base_url + path, timeout=10, **kwargs)


def listed(registry: AgentProcess) -> list[dict[str, Any]]:
    """The agents the registry's `GET /agents` shows."""
    agents: list[dict[str, Any]] = loopback.get(registry.base_url + "/agents", timeout=5).json()["agents"]
    return agents


def registered(registry: AgentProcess, name: str) -> dict[str, Any] | None:
    """The agent `name` as the registry's `GET /agents` shows it, once registered (and healthy: one that
    left stays listed as unhealthy)."""
    return next((a for a in listed(registry) if a["name"] == name and a["status"] == "healthy"), None)


def test_path_query_and_a_component_are_injected(webby: AgentProcess) -> None:
    answer = get(webby, "/api/hello/ada?times=2&unknown=1")
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "application/json"
    assert answer.json() == {"greeting": "Hello ada! Hello ada!"}


def test_the_request_itself_is_injected_by_type(webby: AgentProcess) -> None:
    answer = get(webby, "/api/whoami", headers={"user-agent": "route-test/1"})
    assert answer.json() == {"agent": "route-test/1", "greeting": "Hello you!"}


def test_a_pydantic_parameter_is_the_json_body(webby: AgentProcess) -> None:
    answer = post(webby, "/api/items?note=urgent", json={"name": "pen", "quantity": 3})
    assert answer.status_code == 200
    assert answer.json() == {"added": "pen", "quantity": 3, "note": "urgent"}


def test_a_body_that_fails_validation_is_a_422_naming_the_field(webby: AgentProcess) -> None:
    answer = post(webby, "/api/items", json={"name": "pen", "quantity": 0})
    assert answer.status_code == 422
    [problem] = answer.json()["detail"]
    assert problem["loc"] == ["body", "quantity"]
    assert problem["type"] == "greater_than_equal" and problem["input"] == 0
    missing = post(webby, "/api/items", json={"quantity": 2}).json()["detail"]
    assert [(p["loc"], p["type"]) for p in missing] == [(["body", "name"], "missing")]
    assert post(webby, "/api/items").json()["detail"] == [
        {"type": "missing", "loc": ["body"], "msg": "Field required"}
    ]


def test_a_body_that_is_not_json_is_a_400_and_a_bad_query_value_a_422(webby: AgentProcess) -> None:
    bad_json = post(webby, "/api/items", content=b"{not json", headers={"content-type": "application/json"})
    assert bad_json.status_code == 400 and "not valid JSON" in bad_json.json()["detail"]
    bad_query = get(webby, "/api/hello/ada?times=many")
    assert bad_query.status_code == 422
    assert bad_query.json()["detail"][0]["loc"] == ["query", "times"]


def test_http_exceptions_keep_their_status_and_failures_answer_500_without_traceback(
    webby: AgentProcess,
) -> None:
    assert get(webby, "/api/items/1").json() == {"id": 1}
    missing = get(webby, "/api/items/7")
    assert missing.status_code == 404 and missing.json() == {"detail": "no item 7"}
    failed = get(webby, "/api/boom")
    assert failed.status_code == 500
    assert failed.json() == {"error": "internal_error", "detail": "ValueError: the database is on fire"}
    wait_until(lambda: "route GET /api/boom raised" in webby.text(), timeout=5)


def test_unknown_path_is_404_and_wrong_method_is_405(webby: AgentProcess) -> None:
    assert get(webby, "/api/nothing-here").status_code == 404
    wrong = post(webby, "/api/hello/ada")
    assert wrong.status_code == 405
    assert set(wrong.headers["allow"].split(", ")) == {"GET", "HEAD"}
    assert get(webby, "/api/items").status_code == 405


def test_component_methods_are_routes_with_the_component_state(webby: AgentProcess) -> None:
    first = post(webby, "/api/counter?by=2").json()
    second = post(webby, "/api/counter").json()
    assert second["count"] == first["count"] + 1
    assert get(webby, "/api/counter/greeting").json()["greeting"] == "Hello counter!"


def test_a_required_dependency_without_provider_answers_503_naming_it(webby: AgentProcess) -> None:
    answer = get(webby, "/api/shout?text=hi")
    assert answer.status_code == 503
    assert answer.json() == {"error": "dependency_unavailable", "capability": "upper"}
    assert get(webby, "/api/optional").json() == {"injected": False}


def test_a_stream_route_checks_its_dependencies_before_the_stream_starts(webby: AgentProcess) -> None:
    answer = get(webby, "/api/stream-missing")
    assert answer.status_code == 503
    assert answer.headers["content-type"] == "application/json"
    assert answer.json() == {"error": "dependency_unavailable", "capability": "nowhere"}


def test_a_stream_route_answers_server_sent_events_as_mcp_mesh_does(webby: AgentProcess) -> None:
    answer = get(webby, "/api/stream?prompt=bob")
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "text/event-stream; charset=utf-8"
    assert answer.headers["cache-control"] == "no-cache"
    assert answer.headers["x-accel-buffering"] == "no"
    assert answer.content == (
        b"data: Hello\n\ndata:  \n\ndata: a\ndata: b\n\ndata: \n\ndata: bob!\n\ndata: [DONE]\n\n"
    )


def test_a_stream_that_raises_after_chunks_ends_with_an_error_event(webby: AgentProcess) -> None:
    answer = get(webby, "/api/stream-fail")
    assert answer.status_code == 200
    assert answer.content == (
        b'data: one\n\ndata: two\n\nevent: error\ndata: {"error": "late failure", "type": "RuntimeError"}\n\n'
    )
    wait_until(lambda: "route GET /api/stream-fail (stream) raised" in webby.text(), timeout=5)


def test_a_client_that_disconnects_mid_stream_closes_the_generator(webby: AgentProcess) -> None:
    before = get(webby, "/api/state").json()
    with (
        httpx2.Client(timeout=10, trust_env=False) as client,
        client.stream("GET", webby.base_url + "/api/endless") as response,
    ):
        lines = response.iter_lines()
        assert next(lines) == "data: tick 1"
        assert next(lines) == ""
        assert next(lines) == "data: tick 2"
    # the connection is closed: the generator's finally runs and no task of it is left

    def closed() -> dict[str, int] | None:
        state: dict[str, int] = get(webby, "/api/state").json()
        done = state["closed"] == before["closed"] + 1 and state["stream_tasks"] == 0
        return state if done else None

    state = wait_until(closed, timeout=10)
    assert state["started"] == before["started"] + 1  # type: ignore[index]


def test_dependencies_of_routes_resolve_through_the_registry_and_follow_the_provider(
    registry: AgentProcess,
) -> None:
    env = {"MCP_MESH_REGISTRY_URL": registry.base_url, "MCP_MESH_HEALTH_INTERVAL": "1"}
    with run_agent("tests.apps.routes_api_app", env=env) as gateway:
        assert get(gateway, "/api/shout?text=hi").status_code == 503
        entry: dict[str, Any] = wait_until(lambda: registered(registry, "web-gateway"))  # type: ignore[assignment]
        assert entry["agent_type"] == "api"
        with run_agent("tests.apps.routes_app", env=env) as provider:

            def shouted() -> dict[str, str] | None:
                answer = get(gateway, "/api/shout?text=hi")
                return answer.json() if answer.status_code == 200 else None

            result = wait_until(shouted, timeout=20)
            assert result["text"] == "HI" and result["by"].startswith("webby-")  # type: ignore[index]
            stream = get(gateway, "/api/shout-stream?text=a%20b")
            assert stream.content == b"data: A\n\ndata: B\n\ndata: [DONE]\n\n"
            # the provider's own route depends on its own tool: called in process
            assert get(provider, "/api/shout?text=me").json() == {"text": "ME"}
            assert get(provider, "/api/missing").json()["capability"] == "nowhere"
        # the provider stopped (it unregistered): the route answers 503 again
        answers: list[str] = []  # what the route answered meanwhile, shown if it never turns 503

        def unavailable() -> bool:
            answer = get(gateway, "/api/shout?text=hi")
            answers[:] = [f"{answer.status_code} {answer.text[:200]}"]
            return answer.status_code == 503

        try:
            wait_until(unavailable, timeout=20, processes=(registry, gateway, provider))
        except AssertionError as exc:
            raise AssertionError(f"the route last answered {answers}: {exc}") from None


def test_an_agent_with_tools_and_routes_registers_both(registry: AgentProcess) -> None:
    env = {"MCP_MESH_REGISTRY_URL": registry.base_url, "MCP_MESH_HEALTH_INTERVAL": "1"}
    with run_agent("tests.apps.routes_app", env=env):
        entry: dict[str, Any] = wait_until(lambda: registered(registry, "webby"))  # type: ignore[assignment]
        assert entry["agent_type"] == "mcp_agent"
        tools = {t["function_name"]: t for t in entry["capabilities"]}
        assert tools["upper"]["name"] == "upper"
        assert "GET:/api/shout" not in tools  # a pseudo-tool is no capability, as MCP Mesh lists it
        resolutions = {r["function_name"]: r for r in entry["dependency_resolutions"]}
        assert resolutions["GET:/api/shout"]["status"] == "available"  # its own tool
        assert resolutions["GET:/api/shout"]["provider_agent_id"] == entry["id"]
        assert "GET:/api/hello/{name}" not in resolutions  # routes without dependencies are not sent


def test_a_route_fails_over_to_another_provider_when_its_own_dies(registry: AgentProcess) -> None:
    env = {"MCP_MESH_REGISTRY_URL": registry.base_url, "MCP_MESH_HEALTH_INTERVAL": "1"}
    with (
        run_agent("tests.apps.routes_api_app", env=env) as gateway,
        run_agent("tests.apps.routes_app", env=env) as first,
        run_agent("tests.apps.routes_app", env=env) as second,
    ):
        assert "tool(s) and 15 web route(s)" in first.text()

        def both_known() -> dict[str, str] | None:
            entry = registered(registry, "web-gateway") or {}
            rows = [r for r in entry.get("dependency_resolutions") or [] if r["status"] == "available"]
            listed_ids = {a["id"] for a in listed(registry)}
            both = webbies <= listed_ids
            return get(gateway, "/api/shout?text=hi").json() if rows and both else None

        webbies = {registered_id(registry, first), registered_id(registry, second)}

        chosen: dict[str, str] = wait_until(both_known, timeout=20)  # type: ignore[assignment]
        victim, survivor = (first, second) if chosen["by"] in first.text() else (second, first)
        victim.process.kill()  # no goodbye to the registry: the next request finds it gone
        victim.process.wait(timeout=10)
        answer = get(gateway, "/api/shout?text=again")
        assert answer.status_code == 200, answer.text
        assert answer.json()["text"] == "AGAIN"
        assert answer.json()["by"] in survivor.text()


def test_a_route_leaves_a_provider_whose_health_turns_down(registry: AgentProcess, tmp_path: Path) -> None:
    flag = tmp_path / "health"
    flag.write_text("UP")
    fast = {"MCP_MESH_HEALTH_INTERVAL": "0.5", "MESH_HEALTH__CACHE_TTL": "0.2", "MESH_HEALTH__TIMEOUT": "1"}
    env = {**fast, "MCP_MESH_REGISTRY_URL": registry.base_url}
    with (
        run_agent("starter_app", env=env),
        run_agent("tests.apps.health_app", env={**env, "HEALTH_FILE": str(flag)}),
        run_agent("tests.apps.routes_api_app", env=env) as gateway,
    ):

        def added_by(name: str) -> bool:
            answer = get(gateway, "/api/add?a=2&b=3")
            return answer.status_code == 200 and answer.json()["by"].startswith(name + "-")

        wait_until(lambda: added_by("flaky-adder"), timeout=20)  # its version 2.0.0 is preferred
        flag.write_text("DOWN")
        wait_until(lambda: added_by("starter"), timeout=20)
        assert get(gateway, "/api/add?a=2&b=3").json()["sum"] == 5
        flag.write_text("UP")
        wait_until(lambda: added_by("flaky-adder"), timeout=20)
