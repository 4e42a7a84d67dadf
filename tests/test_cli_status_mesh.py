"""`mesh status` shows the facts of the mesh page: capabilities, dependencies, LLM providers and filters."""

from __future__ import annotations

import json

import httpx2
import pytest

from mesh_framework.cli import main

from .agents import run_registry
from .test_mesh_page import ADDER, CALC


def test_status_shows_capabilities_and_llm_filters(capsys: pytest.CaptureFixture[str]) -> None:
    with run_registry(0, "--timeout", "120") as registry:
        for payload in (CALC, ADDER):
            httpx2.post(registry.base_url + "/heartbeat", json=payload, timeout=5).raise_for_status()
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
