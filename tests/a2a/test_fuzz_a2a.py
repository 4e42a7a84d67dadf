"""Property-based fuzzing of the A2A endpoints on a real agent process (tokens configured), both dialects,
with a bounded budget.

Every answer must be a well-formed HTTP answer: a JSON-RPC message (result or error with an integer code
and a message), a stream of them, or the edge's short JSON refusal; never a 5xx, never a traceback, always
within the client's timeout; and the agent's log stays free of tracebacks and errors. `FUZZ_EXAMPLES`
raises the budget.
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

from tests.a2a.test_a2a_guarded import TOKENS
from tests.agents import AgentProcess, run_agent
from tests.fuzz_strategies import json_values

pytestmark = pytest.mark.timeout(300)

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "60"))
FUZZ = settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=False
)
METHODS = [
    "SendMessage",
    "SendStreamingMessage",
    "GetTask",
    "CancelTask",
    "ListTasks",
    "SubscribeToTask",
    "message/send",
    "message/stream",
    "tasks/get",
    "tasks/cancel",
    "tasks/send",
    "tasks/sendSubscribe",
    "tasks/resubscribe",
]
SKILLS = ["echo", "erase", "flood", "big", "chatter", "nope", ""]  # never `wait`: it runs until cancelled
PATHS = ["/a2a", *(f"/a2a/{skill}" for skill in SKILLS if skill)]
CALLERS = [None, "alice-token", "bob-token", "root-token", "forged"]

json_value = json_values(st.integers(-(2**70), 2**70))
small_ints = st.integers(-3, 300)
arguments = st.fixed_dictionaries(
    {}, optional={"text": st.text(max_size=20), "size": small_ints, "chunks": small_ints, "n": small_ints}
)
part = st.one_of(
    st.builds(lambda text: {"text": text}, st.text(max_size=30)),
    st.builds(lambda text: {"type": "text", "text": text}, st.text(max_size=30)),
    st.builds(lambda data: {"data": data}, arguments | json_value),
    st.builds(lambda data: {"type": "data", "data": data}, arguments | json_value),
    st.builds(lambda args: {"text": json.dumps(args)}, arguments),
    json_value,
)
message = st.fixed_dictionaries(
    {"parts": st.lists(part, max_size=3)},
    optional={
        "messageId": st.text(max_size=10) | json_value,
        "role": st.sampled_from(["ROLE_USER", "ROLE_AGENT", "user", "agent", "ROLE_X"]) | json_value,
        "metadata": st.fixed_dictionaries({}, optional={"skill": st.sampled_from(SKILLS) | json_value}),
        "taskId": st.text(max_size=10) | json_value,
        "contextId": st.text(max_size=10) | json_value,
        "kind": st.just("message"),
    },
)
params = st.fixed_dictionaries(
    {},
    optional={
        "message": message | json_value,
        "id": st.text(max_size=10) | json_value,
        "metadata": st.fixed_dictionaries({}, optional={"skill": st.sampled_from(SKILLS) | json_value}),
        "configuration": st.fixed_dictionaries(
            {}, optional={"returnImmediately": st.booleans(), "historyLength": st.integers(-5, 5)}
        ),
        "contextId": st.text(max_size=10),
        "historyLength": st.integers(-5, 5) | json_value,
    },
)


@pytest.fixture(scope="module")
def agent() -> Iterator[AgentProcess]:
    env = {
        "MESH_AUTH__TOKENS": json.dumps(TOKENS),
        "MESH_A2A__MAX_TASK_BYTES": "20000",
        "MESH_SERVER__MAX_BODY_BYTES": "65536",
    }
    with run_agent("tests.apps.a2a_guarded_app", env=env) as running:
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
    if not response.content:
        return
    content_type = response.headers.get("content-type", "")
    if content_type.startswith("text/event-stream"):
        data = [line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")]
        assert data, response.text[:200]
        answers = [json.loads(chunk) for chunk in data]
    elif content_type.startswith("text/plain"):  # the router's 404/405
        assert response.status_code in (404, 405) and len(response.text) < 500, response.text
        return
    else:
        assert content_type.startswith("application/json"), content_type
        answers = [response.json()]
    final = answers[-1]
    if "detail" in final or ("error" in final and isinstance(final["error"], str)):  # the edge's or a card's
        return
    assert final["jsonrpc"] == "2.0", final
    assert ("result" in final) != ("error" in final), final
    if "error" in final:
        assert isinstance(final["error"]["code"], int)
        assert isinstance(final["error"]["message"], str) and final["error"]["message"]


def headers_for(caller: str | None, version: bool) -> dict[str, str]:
    headers = {"Content-Type": "application/json"}
    if caller is not None:
        headers["Authorization"] = f"Bearer {caller}"
    if version:
        headers["A2A-Version"] = "1.0"
    return headers


@FUZZ
@given(
    body=st.binary(max_size=300) | json_value.map(lambda v: json.dumps(v).encode()),
    path=st.sampled_from(PATHS),
    caller=st.sampled_from(CALLERS),
)
def test_arbitrary_bodies(
    agent: AgentProcess, http: httpx2.Client, body: bytes, path: str, caller: str
) -> None:
    for version in (False, True):
        check_answer(http.post(agent.base_url + path, content=body, headers=headers_for(caller, version)))


@FUZZ
@given(
    method=st.sampled_from(METHODS) | st.text(max_size=20),
    params=params | json_value,
    request_id=st.none() | st.integers() | st.text(max_size=10) | st.lists(st.integers(), max_size=2),
    path=st.sampled_from(PATHS),
    caller=st.sampled_from(CALLERS),
    version=st.booleans(),
    drop=st.sampled_from(["", "jsonrpc", "id", "method", "params"]),
)
def test_json_rpc_shapes(
    agent: AgentProcess,
    http: httpx2.Client,
    method: str,
    params: Any,
    request_id: Any,
    path: str,
    caller: str | None,
    version: bool,
    drop: str,
) -> None:
    body = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
    body.pop(drop, None)
    check_answer(http.post(agent.base_url + path, json=body, headers=headers_for(caller, version)))


@FUZZ
@given(
    http_method=st.sampled_from(["GET", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD", "POST"]),
    path=st.sampled_from(
        [*PATHS, "/.well-known/agent-card.json", "/a2a/echo/.well-known/agent.json", "/a2a/x/.well-known/y"]
    ),
    content_type=st.sampled_from(
        [
            "application/json",
            "application/json; charset=utf-8",
            "text/plain",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=x",
            "application/a2a+json",
        ]
    ),
    host=st.sampled_from(["127.0.0.1", "localhost:1", "localhost"]),
)
def test_methods_content_types_and_hosts(
    agent: AgentProcess, http: httpx2.Client, http_method: str, path: str, content_type: str, host: str
) -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "x"}})
    headers = {**headers_for("alice-token", True), "Content-Type": content_type, "Host": host}
    response = http.request(http_method, agent.base_url + path, content=body, headers=headers)
    if http_method in ("GET", "HEAD") and ".well-known" in path:  # a card, or a JSON 404
        assert response.status_code < 500 and "Traceback" not in response.text
    else:
        check_answer(response)
    if http_method == "GET" and path == "/.well-known/agent-card.json":
        assert response.json()["supportedInterfaces"][0]["url"] == agent.base_url + "/a2a"
