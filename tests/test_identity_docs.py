"""The two-agent example of docs/identity.md runs as written: its files and settings, a registry and a real
authorization server (node-oidc-provider, tests/servers/oidc); the answer is the one the page shows."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx2
import pytest

from tests.agents import ROOT, run_agent, run_registry, wait_until
from tests.docs_examples import page_blocks
from tests.servers.oidc_server import NODE, oidc_server

pytestmark = pytest.mark.timeout(120)

DOC = ROOT / "docs" / "identity.md"
assert NODE  # the server runs under Node (tests/conftest.py classifies the module by this name)


def test_the_two_agent_example_answers_as_the_page_says(tmp_path: Path) -> None:
    text = DOC.read_text()
    blocks = page_blocks(text)
    files = {b.title: b.code for b in blocks if b.kind == "python" and b.title}
    assert set(files) == {"identity_weather/__init__.py", "identity_trips/__init__.py"}
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
        with (
            run_agent("identity_weather", env=weather_env, cwd=tmp_path),
            run_agent("identity_trips", env=trips_env, cwd=tmp_path) as trips,
        ):
            body = {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "plan_trip", "arguments": {"city": "Oslo"}},
            }

            def answered() -> Any:
                response = httpx2.post(
                    trips.mcp_url,
                    json=body,
                    headers={"Accept": "application/json, text/event-stream"},
                    timeout=15,
                )
                result = response.json()["result"]
                return None if result["isError"] else result

            result = wait_until(answered, timeout=30)
    shown = json.loads(text.split("answers\n`", 1)[1].split("`", 1)[0])
    assert result["structuredContent"] == {"result": shown}  # type: ignore[index]
