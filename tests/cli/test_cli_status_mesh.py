"""`mesh status` shows the facts of the mesh page: capabilities, dependencies, LLM providers and filters."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mesh_framework.cli import main
from tests.agents import loopback

from ..agents import run_registry


def agent(agent_id: str, port: int, *tools: dict[str, Any]) -> dict[str, Any]:
    return {
        "agent_id": agent_id,
        "name": agent_id.rsplit("-", 1)[0],
        "http_host": "127.0.0.1",
        "http_port": port,
        "tools": list(tools),
    }


# registrations as agents send them (what `mesh status` shows is the registry's view of them)
CALC = agent(
    "calc-0000000a",
    9101,
    {"function_name": "calc", "capability": "calc", "dependencies": [{"capability": "add"}]},
    {
        "function_name": "ask",
        "capability": "ask",
        "llm_filter": {"filter": [{"capability": "add"}]},
        "llm_provider": {"capability": "llm", "tags": ["claude"]},
    },
)
ADDER = agent(
    "adder-0000000b",
    9102,
    {
        "function_name": "add",
        "capability": "add",
        "tags": ["math"],
        "inputSchema": {"type": "object", "properties": {"a": {"type": "integer"}}},
    },
)


def test_status_shows_capabilities_and_llm_filters(capsys: pytest.CaptureFixture[str]) -> None:
    with run_registry(0, "--timeout", "120") as registry:
        for payload in (CALC, ADDER):
            loopback.post(registry.base_url + "/heartbeat", json=payload, timeout=5).raise_for_status()
        assert main(["status", "--registry-url", registry.base_url, "--json"]) == 0
        agents = {a["name"]: a for a in json.loads(capsys.readouterr().out)["agents"]}
        assert agents["adder"]["capabilities"] == [
            {"name": "add", "tool": "add", "tags": ["math"], "version": "1.0.0"}
        ]
        assert agents["calc"]["llm_filters"] == [{"tool": "ask", "matches": ["add"]}]
        assert agents["calc"]["dependencies"]["slots"][0]["provider_name"] == "adder"
        assert main(["status", "--registry-url", registry.base_url]) == 0
        out = capsys.readouterr().out
        assert "provides: add [math]" in out
        assert "provides: calc, ask" in out
        assert "ask LLM filter matches: add" in out
        assert "calc needs add: resolved by adder" in out
