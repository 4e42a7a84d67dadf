"""Property-based fuzzing of `/mcp` on a real agent process, both protocol eras, with a bounded budget.

Every answer must be a well-formed HTTP answer: a JSON-RPC message (result or error with an integer code
and a message) or a short plain-text refusal; never a 5xx, never a traceback, always within the client's
timeout; and the agent's log stays free of tracebacks and errors. `FUZZ_EXAMPLES` raises the budget
(benchmarks/fuzz_long.py runs it for minutes).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.agents import AgentProcess, run_agent
from tests.fuzz_strategies import header_texts, json_values

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "60"))
FUZZ = settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=False
)
MODERN = "2026-07-28"
VERSIONS = [MODERN, "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2026-06-18", "1999-01-01", ""]
METHODS = [
    "tools/list",
    "tools/call",
    "server/discover",
    "initialize",
    "ping",
    "prompts/list",
    "resources/list",
    "logging/setLevel",
    "notifications/initialized",
    "completion/complete",
]
TOOLS = ["scale", "choose", "flags", "missing"]

header_text = header_texts(40)
json_value = json_values()


@pytest.fixture(scope="module")
def agent() -> Iterator[AgentProcess]:
    with run_agent("tests.apps.fuzz_app", env={"MESH_SERVER__MAX_BODY_BYTES": "65536"}) as running:
        yield running
    log = running.text()
    assert "Traceback" not in log, log[-3000:]
    assert " ERROR " not in log, log[-3000:]


@pytest.fixture(scope="module")
def http() -> Iterator[httpx2.Client]:
    with httpx2.Client(timeout=15, trust_env=False) as client:
        yield client


def check_answer(response: httpx2.Response) -> None:
    """The invariant every answer keeps."""
    assert response.status_code < 500, (response.status_code, response.text[:500])
    assert "Traceback" not in response.text
    if response.status_code in (202, 204) or not response.content:
        return
    content_type = response.headers.get("content-type", "")
    if content_type.startswith("text/event-stream"):
        data = [line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")]
        assert data, response.text[:200]
        messages = [json.loads(chunk) for chunk in data]
    elif content_type.startswith("application/json"):
        messages = [response.json()]
    else:
        assert content_type.startswith("text/plain"), content_type
        assert len(response.text) < 500
        return
    final = messages[-1]
    assert final["jsonrpc"] == "2.0"
    assert ("result" in final) != ("error" in final), final
    if "error" in final:
        assert isinstance(final["error"]["code"], int)
        assert isinstance(final["error"]["message"], str) and final["error"]["message"]


def envelope(method: str, params: Any, request_id: Any, modern: bool) -> dict[str, Any]:
    if modern and isinstance(params, dict):
        params = {
            **params,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        }
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


def _header_bytes(text: str) -> bytes:
    """UTF-8 bytes a header may carry (control characters dropped: clients cannot send them)."""
    return bytes(c for c in text.encode() if c >= 0x20 and c != 0x7F).strip()


def modern_headers(method: str, name: str | None) -> dict[str, str | bytes]:
    headers: dict[str, str | bytes] = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": MODERN,
        "Mcp-Method": _header_bytes(method),
    }
    if name is not None:
        headers["Mcp-Name"] = _header_bytes(name)
    return headers


@FUZZ
@given(body=st.binary(max_size=300) | json_value.map(lambda v: json.dumps(v).encode()))
def test_arbitrary_bodies(agent: AgentProcess, http: httpx2.Client, body: bytes) -> None:
    for version in (None, MODERN):
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if version:
            headers["MCP-Protocol-Version"] = version
        check_answer(http.post(agent.mcp_url, content=body, headers=headers))


@FUZZ
@given(
    method=st.sampled_from(METHODS) | st.text(max_size=20),
    params=json_value,
    request_id=st.none()
    | st.integers()
    | st.text(max_size=10)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.lists(st.integers()),
    modern=st.booleans(),
    drop=st.sampled_from(["", "jsonrpc", "id", "method"]),
)
def test_json_rpc_shapes(
    agent: AgentProcess,
    http: httpx2.Client,
    method: str,
    params: Any,
    request_id: Any,
    modern: bool,
    drop: str,
) -> None:
    message = envelope(method, params, request_id, modern)
    message.pop(drop, None)
    headers = modern_headers(method, None) if modern else {"Content-Type": "application/json"}
    check_answer(http.post(agent.mcp_url, json=message, headers=headers))


@FUZZ
@given(
    messages=st.lists(
        st.builds(envelope, st.sampled_from(METHODS), json_value, st.integers(), st.booleans()), max_size=5
    )
)
def test_batches(agent: AgentProcess, http: httpx2.Client, messages: list[dict[str, Any]]) -> None:
    check_answer(http.post(agent.mcp_url, json=messages, headers={"Content-Type": "application/json"}))


@FUZZ
@given(
    http_method=st.sampled_from(["GET", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD", "POST"]),
    version=st.sampled_from(VERSIONS) | header_text,
    mcp_method=st.sampled_from(METHODS) | header_text,
    name=st.none() | st.sampled_from(TOOLS) | header_text,
    accept=st.sampled_from(["application/json", "text/event-stream", "*/*", "text/html", ""]) | header_text,
    content_type=st.sampled_from(
        [
            "application/json",
            "application/json; charset=utf-8",
            "text/plain",
            "application/json; charset=utf-16",
        ]
    )
    | header_text,
    extra=st.dictionaries(
        st.sampled_from(
            ["Mcp-Param-Factor", "Origin", "Host", "Content-Encoding", "X-Mesh-Timeout", "Mcp-Name"]
        ),
        header_text,
        max_size=3,
    ),
)
def test_headers_and_methods(
    agent: AgentProcess,
    http: httpx2.Client,
    http_method: str,
    version: str,
    mcp_method: str,
    name: str | None,
    accept: str,
    content_type: str,
    extra: dict[str, str],
) -> None:
    params: dict[str, Any] = {"name": name or "flags", "arguments": {"enabled": True}}
    headers = {**modern_headers(mcp_method, name), "MCP-Protocol-Version": version, "Accept": accept}
    headers["Content-Type"] = content_type
    headers.update(extra)
    body = json.dumps(envelope("tools/call", params, 1, True))
    encoded = body.encode("utf-16") if "utf-16" in content_type else body.encode()
    response = http.request(http_method, agent.mcp_url, content=encoded, headers=headers)
    check_answer(response)


def from_schema(schema: dict[str, Any], defs: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values for a JSON schema of the shapes tools have (a small subset: enough for these tools)."""
    if "$ref" in schema:
        return from_schema(defs[schema["$ref"].rsplit("/", 1)[-1]], defs)
    if "anyOf" in schema:
        return st.one_of([from_schema(option, defs) for option in schema["anyOf"]])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    kind = schema.get("type")
    if kind == "integer":
        return st.integers(schema.get("minimum"), schema.get("maximum"))
    if kind == "number":
        return st.floats(
            schema.get("minimum", schema.get("exclusiveMinimum")),
            schema.get("maximum", schema.get("exclusiveMaximum")),
            exclude_min="exclusiveMinimum" in schema,
            exclude_max="exclusiveMaximum" in schema,
            allow_nan=False,
            allow_infinity=False,
        )
    if kind == "string":
        return st.text(max_size=30)
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        return st.lists(
            from_schema(schema.get("items", {}), defs), max_size=min(schema.get("maxItems", 5), 5)
        )
    if kind == "object":
        properties = schema.get("properties", {})
        if not properties:
            return st.dictionaries(st.text(max_size=8), st.integers(), max_size=3)
        required = set(schema.get("required", []))
        return st.fixed_dictionaries(
            {k: from_schema(v, defs) for k, v in properties.items() if k in required},
            optional={k: from_schema(v, defs) for k, v in properties.items() if k not in required},
        )
    return json_value


@pytest.fixture(scope="module")
def tool_schemas(agent: AgentProcess, http: httpx2.Client) -> dict[str, dict[str, Any]]:
    answer = http.post(
        agent.mcp_url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, headers={"Accept": "*/*"}
    )
    return {tool["name"]: tool["inputSchema"] for tool in answer.json()["result"]["tools"]}


@FUZZ
@given(
    data=st.data(),
    tool=st.sampled_from(["scale", "choose", "flags"]),
    valid=st.booleans(),
    modern=st.booleans(),
)
def test_tool_arguments_against_their_schemas(
    agent: AgentProcess,
    http: httpx2.Client,
    tool_schemas: dict[str, dict[str, Any]],
    data: st.DataObject,
    tool: str,
    valid: bool,
    modern: bool,
) -> None:
    schema = tool_schemas[tool]
    if valid:
        arguments = data.draw(from_schema(schema, schema.get("$defs", {})))
    else:
        arguments = data.draw(
            st.dictionaries(st.sampled_from([*schema["properties"], "zz"]), json_value, max_size=4)
        )
    params = {"name": tool, "arguments": arguments}
    headers = modern_headers("tools/call", tool) if modern else {"Content-Type": "application/json"}
    response = http.post(agent.mcp_url, json=envelope("tools/call", params, 7, modern), headers=headers)
    check_answer(response)
    result = response.json().get("result")
    if valid:
        assert result is not None and result.get("isError") is not True, response.text[:500]


@pytest.fixture(scope="module")
def tasks_agent() -> Iterator[AgentProcess]:
    """An agent with background tools: it serves both protocol versions' task methods."""
    with run_agent("tests.apps.tasks_app") as running:
        yield running
    log = running.text()
    assert "Traceback" not in log, log[-3000:]
    assert " ERROR " not in log, log[-3000:]


TASK_METHODS = ["tasks/get", "tasks/result", "tasks/list", "tasks/cancel", "tasks/update", "tools/call"]


@FUZZ
@given(
    method=st.sampled_from(TASK_METHODS),
    params=st.fixed_dictionaries(
        {},
        optional={
            "taskId": json_value,
            "cursor": json_value,
            "task": json_value,
            "name": st.sampled_from(["slow_compute", "greet", "failing_job", "nope"]) | st.text(max_size=8),
            "arguments": json_value,
        },
    ),
    version=st.sampled_from([None, "2025-11-25", "2025-06-18", MODERN]),
)
def test_task_methods(
    tasks_agent: AgentProcess, http: httpx2.Client, method: str, params: dict[str, Any], version: str | None
) -> None:
    """Arbitrary task requests of both forms: 2025-11-25's (`params.task`, tasks/*) and 2026-07-28's."""
    if method == "tools/call" and isinstance(params.get("arguments"), dict):
        params["arguments"].pop("seconds", None)  # no long task: tasks/result of a fuzzed id never waits
    headers: dict[str, str | bytes] = {"Content-Type": "application/json"}
    if version == MODERN:
        headers = modern_headers(method, params.get("name") if method == "tools/call" else None)
    elif version is not None:
        headers["MCP-Protocol-Version"] = version
    message = envelope(method, params, 1, version == MODERN)
    check_answer(http.post(tasks_agent.mcp_url, json=message, headers=headers))
