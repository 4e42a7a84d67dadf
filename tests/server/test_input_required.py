"""Multi-round-trip calls: InputRequired results, signed requestState, capability checks."""

from __future__ import annotations

from typing import Any

import pytest

from mesh_framework import MeshApplication, elicit
from mesh_framework.protocol.request_state import RequestStateSigner, TamperedStateError
from mesh_framework.testing import MeshTestClient, mesh_client

MODERN_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}


def test_signed_state_round_trips_and_is_bound_to_the_tool() -> None:
    signer = RequestStateSigner(b"k" * 32)
    token = signer.encode("book", {"step": 2, "items": [1, 2]})
    assert signer.decode("book", token) == {"step": 2, "items": [1, 2]}
    with pytest.raises(TamperedStateError, match="failed verification for tool 'other'"):
        signer.decode("other", token)
    with pytest.raises(TamperedStateError):
        signer.decode("book", token + "-TAMPERED")
    with pytest.raises(TamperedStateError):
        RequestStateSigner(b"x" * 32).decode("book", token)  # another agent's key


def test_elicit_helper_shape() -> None:
    assert elicit("Name?", {"name": {"type": "string"}}, ["name"]) == {
        "method": "elicitation/create",
        "params": {
            "message": "Name?",
            "requestedSchema": {
                "type": "object",
                "properties": {"name": {"type": "string"}},
                "required": ["name"],
            },
        },
    }


async def call(
    client: MeshTestClient,
    name: str,
    params: dict[str, Any],
    capabilities: dict[str, Any],
    modern: bool = True,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": name, "arguments": {}, **params},
    }
    headers = {"Accept": "application/json, text/event-stream"}
    if modern:
        body["params"]["_meta"] = {**MODERN_META, "io.modelcontextprotocol/clientCapabilities": capabilities}
        headers |= {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": name}
    response = await client.http.post("/mcp", json=body, headers=headers)
    text = response.text
    if text.startswith("event:"):
        import json

        return json.loads(text.rsplit("data: ", 1)[1])  # type: ignore[no-any-return]
    return response.json()  # type: ignore[no-any-return]


async def test_multi_round_with_state() -> None:
    app = MeshApplication.load("tests.apps.conformance_app", environ={})
    caps = {"elicitation": {}}
    async with mesh_client(app) as client:
        first = (await call(client, "test_input_required_result_multi_round", {}, caps))["result"]
        assert first["resultType"] == "input_required"
        assert first["inputRequests"]["name"]["method"] == "elicitation/create"
        second = (
            await call(
                client,
                "test_input_required_result_multi_round",
                {
                    "requestState": first["requestState"],
                    "inputResponses": {"name": {"action": "accept", "content": {"name": "Alice"}}},
                },
                caps,
            )
        )["result"]
        assert second["resultType"] == "input_required" and second["requestState"] != first["requestState"]
        third = (
            await call(
                client,
                "test_input_required_result_multi_round",
                {
                    "requestState": second["requestState"],
                    "inputResponses": {"color": {"action": "accept", "content": {"color": "blue"}}},
                },
                caps,
            )
        )["result"]
        assert third["resultType"] == "complete"
        assert third["content"][0]["text"] == "Alice likes blue"


async def test_tampered_state_and_malformed_responses_are_json_rpc_errors() -> None:
    app = MeshApplication.load("tests.apps.conformance_app", environ={})
    caps = {"elicitation": {}}
    name = "test_input_required_result_request_state"
    async with mesh_client(app) as client:
        first = (await call(client, name, {}, caps))["result"]
        tampered = await call(
            client,
            name,
            {
                "requestState": first["requestState"] + "x",
                "inputResponses": {"confirm": {"action": "accept"}},
            },
            caps,
        )
        assert tampered["error"]["code"] == -32602
        malformed = await call(client, name, {"inputResponses": {"confirm": 12345}}, caps)
        assert malformed["error"]["code"] == -32602


async def test_input_requests_need_the_client_capability_and_the_modern_protocol() -> None:
    app = MeshApplication.load("tests.apps.conformance_app", environ={})
    async with mesh_client(app) as client:
        refused = (await call(client, "test_input_required_result_elicitation", {}, {"sampling": {}}))[
            "result"
        ]
        assert refused["isError"] is True
        assert "missing capabilities: elicitation" in refused["content"][0]["text"]
        legacy = (await call(client, "test_input_required_result_elicitation", {}, {}, modern=False))[
            "result"
        ]
        assert legacy["isError"] is True and "needs protocol 2026-07-28" in legacy["content"][0]["text"]
