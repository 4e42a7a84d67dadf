"""Write the LLM interop exchanges of tests/interop/test_interop_llm.py out as fixtures
(tests/interop/llm_captures/).

    .venv/bin/python -m tests.interop.llm_capture

Runs both meshes of the tests (the real registry, mcp-mesh 3.8 agents and ours, the fake OpenAI server),
makes the same calls and saves, per direction, the heartbeats that named the LLM provider, every
agent-to-agent `tools/call` of the calls, and what the model was sent. Agent ids and ports are from the
run; the tap's proxy URLs are replaced by the real endpoints, so the exchanges read as they were meant.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest

from tests.interop.mcp_mesh import Exchange, MeshTap
from tests.interop.test_interop_llm import (
    SUM_TURNS,
    TEXT_TURNS,
    Called,
    LlmMesh,
    TestAnMcpMeshConsumerWithOurProvider,
    TestOurConsumersWithAnMcpMeshProvider,
    mcp_mesh_consumer_mesh,
    mcp_mesh_provider_mesh,
)

OUT = Path(__file__).resolve().parent / "llm_captures"


def plain(tap: MeshTap, value: Any) -> Any:
    return json.loads(tap.unproxied(json.dumps(value)))


def first_heartbeat(mesh: LlmMesh, agent: str) -> dict[str, Any]:
    return plain(mesh.tap, mesh.tap.heartbeats(agent)[0].to_json())


def resolving_heartbeat(mesh: LlmMesh, agent: str, tool: str) -> dict[str, Any]:
    for exchange in mesh.tap.heartbeats(agent):
        if (exchange.response_json.get("llm_providers") or {}).get(tool):
            return plain(mesh.tap, exchange.to_json())
    raise RuntimeError(f"no heartbeat answer to {agent} named an LLM provider for {tool}")


def agent_calls(mesh: LlmMesh, called: Called) -> list[dict[str, Any]]:
    """Every `tools/call` between agents during the call (the refused first attempts too), in order."""
    calls: list[Exchange] = [
        e for e in called.exchanges if e.target != mesh.tap.registry_url and e.rpc_method == "tools/call"
    ]
    return [plain(mesh.tap, e.to_json()) for e in calls]


def call_record(mesh: LlmMesh, what: str, called: Called) -> dict[str, Any]:
    return {
        "what": what,
        "answer": called.answer,
        "agent_to_agent_tools_calls": agent_calls(mesh, called),
        "model_requests": called.model_requests,
    }


def write(name: str, capture: dict[str, Any]) -> None:
    path = OUT / name
    path.write_text(json.dumps(capture, indent=2) + "\n")
    print(f"wrote {path}")


def main() -> None:
    OUT.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        with mcp_mesh_consumer_mesh(Path(tmp) / "a") as mesh:
            ask = TestAnMcpMeshConsumerWithOurProvider.ask
            text_call = ask(mesh, "mesh_ask", TEXT_TURNS)
            sum_call = ask(mesh, "mesh_sum", SUM_TURNS)
            write(
                "mcp_mesh_consumer_with_our_provider.json",
                {
                    "about": "mcp-mesh 3.8 @mesh.llm consumer (tests/interop/llm_asker.py) -> our "
                    "@mesh_llm_provider (tests/apps/llm_provider_app, model: the fake OpenAI server) -> our "
                    "`add` (starter_app), on the real registry 3.7.1. The consumer sends `_mesh_endpoint`, "
                    "so our provider runs the tool loop. Endpoints: " + json.dumps(mesh.endpoints),
                    "heartbeat_of_the_mcp_mesh_consumer": resolving_heartbeat(mesh, "mesh-asker", "mesh_ask"),
                    "heartbeat_of_our_provider": first_heartbeat(mesh, "fakellm"),
                    "text_answer": call_record(mesh, "meshctl call mesh_ask {question}", text_call),
                    "structured_answer": call_record(mesh, "meshctl call mesh_sum {question}", sum_call),
                },
            )
        with mcp_mesh_provider_mesh(Path(tmp) / "b") as mesh, pytest.MonkeyPatch.context() as patch:
            ask_ours = TestOurConsumersWithAnMcpMeshProvider.ask  # `mesh call`, in this process
            text_call = ask_ours(mesh, "ask_mesh", TEXT_TURNS, patch)
            sum_call = ask_ours(mesh, "sum_mesh", SUM_TURNS, patch)
            write(
                "our_consumers_with_an_mcp_mesh_provider.json",
                {
                    "about": "our @mesh_llm consumers (tests/apps/llm_mesh_app `ask_mesh`, "
                    "tests/interop/llm_app `sum_mesh`) -> mcp-mesh 3.8 @mesh.llm_provider "
                    "(tests/interop/llm_provider.py, model: the fake OpenAI server); `add` served by an "
                    "mcp-mesh agent (tests/interop/mesh_agents/adder.py), on the real registry 3.7.1. "
                    "We send no `_mesh_endpoint`: one model turn per provider call, we run the tools. "
                    "Endpoints: " + json.dumps(mesh.endpoints),
                    "heartbeat_of_the_mcp_mesh_provider": first_heartbeat(mesh, "mesh-fakellm"),
                    "heartbeat_of_our_consumer": resolving_heartbeat(mesh, "asker", "ask_mesh"),
                    "text_answer": call_record(mesh, "mesh call ask_mesh {question}", text_call),
                    "structured_answer": call_record(mesh, "mesh call sum_mesh {question}", sum_call),
                },
            )


if __name__ == "__main__":
    main()
