"""Input asked by a tool hops away reaches the client, and its answer the tool that asked.

A registry, `relay_back` (tools that ask the client for input), `relay_front` (tools that call them, none
taking a ToolContext) and `mesh gateway` in front, all real processes. The MCP SDK client answers the
questions: through the gateway (client -> gateway -> front -> back), straight to `front` (client -> front ->
back) and one more hop (back's tool calling its own agent's tool in process)."""

from __future__ import annotations

import base64
import contextlib
import json
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from mcp import Client

from ..agents import AgentProcess, run_agent, run_mesh, run_registry, wait_until

pytestmark = pytest.mark.timeout(120)

CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"


@pytest.fixture(scope="module")
def mesh() -> Iterator[dict[str, AgentProcess]]:
    with contextlib.ExitStack() as stack:
        registry = stack.enter_context(run_registry(0, "--timeout", "120"))
        env = {"MCP_MESH_REGISTRY_URL": registry.base_url}
        stack.enter_context(run_agent("tests.apps.relay_back", env=env))
        front = stack.enter_context(run_agent("tests.apps.relay_front", env=env))
        for capability in ("ask_name", "ask_date", "nested_name"):
            wait_until(lambda c=capability: f"{c} -> " in front.text(), timeout=30)  # type: ignore[misc]
        gateway = stack.enter_context(run_mesh(["gateway", "--port", "0"], env=env))
        yield {"front": front, "gateway": gateway}


class Answers:
    """The SDK client's elicitation callback: answers each question by its message, recording the order."""

    def __init__(self, **by_message: dict[str, Any]) -> None:
        self.by_message = by_message
        self.asked: list[str] = []

    async def __call__(self, _context: Any, params: Any) -> Any:
        from mcp.types import ElicitResult

        self.asked.append(params.message)
        return ElicitResult(action="accept", content=self.by_message[params.message])


NAME = {"Who is there?": {"name": "Ada"}}


async def call_tool(url: str, tool: str, answers: Answers) -> str:
    async with Client(url, mode="2026-07-28", elicitation_callback=answers) as client:
        result = await client.call_tool(tool, {})
    assert result.is_error is False, result.content
    return result.content[0].text  # type: ignore[union-attr,no-any-return]


async def raw_call(url: str, tool: str, params: dict[str, Any], *, modern: bool = True) -> dict[str, Any]:
    """One tools/call as a client sends it (2026-07-28 declaring elicitation, or legacy); its message."""
    body: dict[str, Any] = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": tool, "arguments": {}, **params},
    }
    headers = {"Accept": "application/json, text/event-stream"}
    if modern:
        body["params"]["_meta"] = {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            CAPABILITIES: {"elicitation": {}},
        }
        headers |= {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": tool}
    async with httpx2.AsyncClient(timeout=30, trust_env=False) as http:
        response = await http.post(url, json=body, headers=headers)
    text = response.text
    message = json.loads(text.rsplit("data: ", 1)[1]) if text.startswith("event:") else response.json()
    assert isinstance(message, dict)
    return message


@pytest.mark.parametrize("through", ["gateway", "front"])
async def test_a_question_two_agents_away_reaches_the_sdk_client_and_its_answer_the_tool(
    mesh: dict[str, AgentProcess], through: str
) -> None:
    answers = Answers(**NAME)
    assert await call_tool(mesh[through].mcp_url, "greet", answers) == "hello, name=Ada"
    assert answers.asked == ["Who is there?"]


async def test_the_question_carries_the_dependency_in_its_key_and_the_state_is_the_callers(
    mesh: dict[str, AgentProcess],
) -> None:
    first = (await raw_call(mesh["gateway"].mcp_url, "greet", {}))["result"]
    assert first["resultType"] == "input_required"
    assert list(first["inputRequests"]) == ["ask_name/who"]
    assert first["inputRequests"]["ask_name/who"]["params"]["message"] == "Who is there?"
    answer = {"action": "accept", "content": {"name": "Grace"}}
    second = await raw_call(
        mesh["gateway"].mcp_url,
        "greet",
        {"inputResponses": {"ask_name/who": answer}, "requestState": first.get("requestState")},
    )
    assert second["result"]["content"][0]["text"] == "hello, name=Grace"


async def test_answers_reach_the_dependency_that_asked_when_a_tool_calls_two(
    mesh: dict[str, AgentProcess],
) -> None:
    # round 1: ask_name asks; round 2: ask_name answers, ask_date asks (with a state of its own); round 3:
    # ask_name gets its answer again, ask_date its answer and its state
    answers = Answers(**NAME, **{"When?": {"date": "tomorrow"}})
    text = await call_tool(mesh["gateway"].mcp_url, "plan", answers)
    assert text == "name=Ada on date=tomorrow (state when)"
    assert answers.asked == ["Who is there?", "When?"]


async def test_a_question_asked_in_the_dependencys_own_process_crosses_one_more_hop(
    mesh: dict[str, AgentProcess],
) -> None:
    first = (await raw_call(mesh["front"].mcp_url, "deep", {}))["result"]
    assert list(first["inputRequests"]) == ["nested_name/ask_name/who"]
    answers = Answers(**NAME)
    assert await call_tool(mesh["gateway"].mcp_url, "deep", answers) == "deep nested name=Ada"


def tampered(token: str, change: dict[str, Any]) -> str:
    """`token` with its payload changed and its signature kept."""
    payload, mac = token.split(".")
    state = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    state.update(change)
    encoded = base64.urlsafe_b64encode(json.dumps(state).encode()).rstrip(b"=").decode()
    return f"{encoded}.{mac}"


async def test_a_tampered_state_is_refused_by_the_agent_that_signed_it(mesh: dict[str, AgentProcess]) -> None:
    first = (await raw_call(mesh["front"].mcp_url, "plan", {}))["result"]
    answer = {"action": "accept", "content": {"name": "Ada"}}
    second = (
        await raw_call(
            mesh["front"].mcp_url,
            "plan",
            {"inputResponses": {"ask_name/who": answer}, "requestState": first["requestState"]},
        )
    )["result"]
    assert list(second["inputRequests"]) == ["ask_date/when"]
    forged = tampered(second["requestState"], {"state": "forged"})
    answered = {"ask_date/when": {"action": "accept", "content": {"date": "now"}}}
    refused = await raw_call(
        mesh["front"].mcp_url, "plan", {"inputResponses": answered, "requestState": forged}
    )
    assert refused["error"]["code"] == -32602
    assert "requestState failed verification for tool 'plan'" in refused["error"]["message"]
    through_gateway = await raw_call(
        mesh["gateway"].mcp_url, "plan", {"inputResponses": answered, "requestState": forged}
    )
    assert through_gateway["error"] == refused["error"]  # the agent's refusal, relayed as it was made


async def test_a_client_that_cannot_answer_gets_a_clear_error(mesh: dict[str, AgentProcess]) -> None:
    legacy = (await raw_call(mesh["front"].mcp_url, "greet", {}, modern=False))["result"]
    assert legacy["isError"] is True
    assert legacy["content"][0]["text"] == (
        "Tool 'greet' needs input from the client (elicitation, sampling or roots), which needs protocol "
        "2026-07-28; this client speaks an older one (asked by its dependency 'ask_name')"
    )
    async with Client(mesh["gateway"].mcp_url, mode="2026-07-28") as client:  # no elicitation callback
        result = await client.call_tool("greet", {})
    assert result.is_error is True
    assert "did not declare it can give (missing capabilities: elicitation)" in result.content[0].text  # type: ignore[union-attr]
