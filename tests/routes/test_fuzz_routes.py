"""Property-based fuzzing of an agent's web side on a real process, with a bounded budget: `@mesh_route`
JSON and form routes, a served FastAPI app, A2A, static files and health, behind the guarded edge.

Whatever the method, path, headers, content type and body (JSON of any shape, NaN and Infinity, lone
surrogates, deep nesting, bytes that are not JSON), the answer is never a 5xx, and the agent's log holds
no traceback. `FUZZ_EXAMPLES` raises the budget.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator

import httpx2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.agents import AgentProcess, run_agent
from tests.fuzz_strategies import header_texts, json_values

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "80"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
PATHS = [
    "/api/orders",
    "/api/feedback",
    "/api/calls",
    "/api/caller",
    "/fa/json",
    "/fa/form",
    "/a2a",
    "/a2a/echo",
    "/.well-known/agent-card.json",
    "/static/index.html",
    "/status",
    "/health",
    "/nowhere",
]
CONTENT_TYPES = [
    "application/json",
    "application/json; charset=utf-8",
    "application/merge-patch+json",
    "text/plain",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=xyz",
    "multipart/form-data",
    "",
    "application/json; charset=latin-1",
]
SPECIAL_BODIES = [
    b'{"item": NaN, "quantity": 1}',
    b'{"item": "a", "quantity": Infinity}',
    b'{"item": "\\ud800", "quantity": 1}',
    b"[" * 5000 + b"]" * 5000,
    b'{"a":' * 3000 + b"1" + b"}" * 3000,
    b'{"item": "a", "quantity": 1} trailing',
    b"\xff\xfe\x00",
    b'{"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": 5}}',
    b'{"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": {"parts": [{}]}}}',
    b'{"item": "a", "quantity": 1e400}',
    b'--xyz\r\nContent-Disposition: form-data; name="text"\r\n\r\nhi\r\n--xyz--\r\n',
    b"text=%FF%FE&text=",
    b"",
]

json_value = json_values()
bodies = (
    st.sampled_from(SPECIAL_BODIES)
    | json_value.map(lambda v: json.dumps(v).encode())
    | st.fixed_dictionaries({"item": json_value, "quantity": json_value}).map(
        lambda v: json.dumps(v).encode()
    )
    | st.binary(max_size=200)
)
header_text = header_texts(30)


@pytest.fixture(scope="module")
def agent() -> Iterator[AgentProcess]:
    env = {"MESH_REGISTRY__ENABLED": "false", "MESH_SERVER__MAX_BODY_BYTES": "65536"}
    with run_agent("tests.apps.edge_app", env=env) as running:
        yield running
    log = running.text()
    assert "Traceback" not in log, log[-3000:]


@pytest.fixture(scope="module")
def http() -> Iterator[httpx2.Client]:
    with httpx2.Client(timeout=20, trust_env=False) as client:
        yield client


@FUZZ
@given(
    method=st.sampled_from(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]),
    path=st.sampled_from(PATHS) | st.text(max_size=20).map(lambda t: "/api/" + t.replace("?", "")),
    content_type=st.sampled_from(CONTENT_TYPES),
    body=bodies,
    query=st.dictionaries(header_text, header_text, max_size=3),
    extra=st.dictionaries(st.sampled_from(["accept", "origin", "x-trace-id", "authorization"]), header_text),
)
@pytest.mark.timeout(300)
def test_the_web_side_never_fails_on_what_is_sent(
    agent: AgentProcess,
    http: httpx2.Client,
    method: str,
    path: str,
    content_type: str,
    body: bytes,
    query: dict[str, str],
    extra: dict[str, str],
) -> None:
    headers = {"content-type": content_type, **extra} if content_type else dict(extra)
    if "origin" in headers:
        headers["origin"] = "http://127.0.0.1:1"  # a page of this machine: past the guard, into the routes
    try:
        answer = http.request(method, agent.base_url + path, content=body, headers=headers, params=query)
    except httpx2.InvalidURL:
        return  # a path httpx itself will not send
    assert answer.status_code < 500, (method, path, content_type, body[:80], answer.text[:300])
    assert "Traceback" not in answer.text
