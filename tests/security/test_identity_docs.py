"""The examples of docs/identity.md run as written: their files and settings, a registry and a real
authorization server (node-oidc-provider, tests/servers/oidc); the answers are the ones the page shows.
Two agents with client credentials; the same two agents calling for a user (token exchange)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.agents import ROOT, loopback, run_agent, run_registry, wait_until
from tests.docs_examples import page_blocks, section
from tests.servers.oidc_server import NODE, oidc_server

pytestmark = pytest.mark.timeout(120)

DOC = ROOT / "docs" / "identity.md"
assert NODE  # the server runs under Node (tests/conftest.py classifies the module by this name)


def run_section(
    tmp_path: Path, title: str, packages: tuple[str, str], user: str | None = None
) -> tuple[Any, str]:
    """`plan_trip(city=Oslo)` on the trip agent of section `title` (as `user`, when given), and the
    answer the section shows."""
    text = section(DOC.read_text(), title)
    blocks = page_blocks(text)
    files = {b.title: b.code for b in blocks if b.kind == "python" and b.title}
    assert set(files) == {f"{package}/__init__.py" for package in packages}
    weather_yaml, trips_yaml = [b.code for b in blocks if b.kind == "yaml"]
    for name, code in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(code)
    for agent, settings in (("weather", weather_yaml), ("trips", trips_yaml)):
        (tmp_path / f"{agent}-config").mkdir()
        (tmp_path / f"{agent}-config" / "application.yaml").write_text(settings)
    clients = [{"client_id": "trips", "client_secret": "trips-secret"}]
    with (
        oidc_server(ttl=30, scopes="read", clients=clients) as oauth,
        run_registry(0, "--timeout", "3") as registry,
    ):
        mesh = {
            "MCP_MESH_REGISTRY_URL": registry.base_url,
            "MCP_MESH_HEALTH_INTERVAL": "0.5",
            "ISSUER": oauth.issuer,
        }
        weather_env = {**mesh, "MESH_CONFIG": str(tmp_path / "weather-config")}
        trips_env = {
            **mesh,
            "MESH_CONFIG": str(tmp_path / "trips-config"),
            "TRIPS_CLIENT_SECRET": "trips-secret",
        }
        headers = {"Accept": "application/json, text/event-stream"}
        if user is not None:  # her token for the trip agent, as her login gave it
            headers["Authorization"] = f"Bearer {oauth.user_token(user, 'urn:example:trips')}"
        with (
            run_agent(packages[0], env=weather_env, cwd=tmp_path),
            run_agent(packages[1], env=trips_env, cwd=tmp_path) as trips,
        ):
            body = {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "plan_trip", "arguments": {"city": "Oslo"}},
            }

            def answered() -> Any:
                response = loopback.post(trips.mcp_url, json=body, headers=headers, timeout=15)
                result = response.json()["result"]
                return None if result["isError"] else result

            result = wait_until(answered, timeout=30)
    shown = json.loads("{" + text.split("\n`{", 1)[1].split("`", 1)[0])  # the answer the page shows
    return result, shown


def test_the_two_agent_example_answers_as_the_page_says(tmp_path: Path) -> None:
    result, shown = run_section(
        tmp_path, "Two agents with client credentials", ("identity_weather", "identity_trips")
    )
    assert result["structuredContent"] == {"result": shown}


def test_the_user_s_call_reaches_the_second_agent_as_the_user(tmp_path: Path) -> None:
    result, shown = run_section(
        tmp_path, "On behalf of the user", ("onbehalf_weather", "onbehalf_trips"), user="alice"
    )
    assert shown["for_user"] == "alice" and shown["via"] == "trips"
    assert result["structuredContent"] == {"result": shown}
