"""What the registry and the console take at the door: strict JSON (one parser, registry/inputs.py) and
payloads checked so that what is kept can always be shown again. A bad heartbeat or console push is a 400
naming its field, and `/agents`, `/ui/state`, `/ui/tools`, `/ui/console` keep answering for everyone.
The registry app through Starlette's TestClient (behind its guarded edge, as served)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from mesh_framework.registry.inputs import MAX_JSON_DEPTH, BodyError, parse_json
from mesh_framework.registry.registry_app import build_registry_app
from mesh_framework.registry.store import RegistryStore

pytestmark = pytest.mark.timeout(60)

JSON = {"content-type": "application/json"}
READS = ("/agents", "/ui/state", "/ui/tools", "/ui/console", "/ui/events", "/a2a/agents", "/jobs")


@pytest.fixture
def client() -> Iterator[TestClient]:
    app = build_registry_app(RegistryStore(), sweep=False)
    with TestClient(app, base_url="http://127.0.0.1", client=("127.0.0.1", 5000)) as opened:
        yield opened


def _everything_reads(client: TestClient) -> None:
    for path in READS:
        response = client.get(path)
        assert response.status_code == 200, (path, response.text)


def _refused(response: Any, field: str, text: str) -> None:
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["field"] == field, body
    assert text in body["message"], body


@pytest.mark.parametrize(
    ("raw", "field", "text"),
    [
        (b'{"a": NaN}', "a", "NaN is not a JSON number"),
        (b'{"a": [1, -Infinity]}', "a[1]", "-Infinity is not a JSON number"),
        (b'{"t": [{"x": 1e999}]}', "t[0].x", "1e999 is not a JSON number"),
        (b'{"id": ' + b"9" * 41 + b"}", "id", "at most 40 digits"),
        (b'{"a": {"b": "x\\ud800"}}', "a.b", "lone UTF-16 surrogate"),
        (b'{"k\\udc00": 1}', "", "a key holds a lone UTF-16 surrogate"),
        (b"[" * 100_000 + b"]" * 100_000, "", f"nested deeper than {MAX_JSON_DEPTH} levels"),
        (b"{" * 50_000, "", f"nested deeper than {MAX_JSON_DEPTH} levels"),
        (b'{"a": 1', "", "not valid JSON"),
        (b"\xff\xfe\xfa", "", "not valid JSON"),
    ],
)
def test_the_parser_refuses_what_json_cannot_carry_naming_where(raw: bytes, field: str, text: str) -> None:
    with pytest.raises(BodyError) as refused:
        parse_json(raw)
    assert refused.value.field == field
    assert text in str(refused.value)


def test_the_parser_takes_json_as_it_is() -> None:
    deep = b"[" * MAX_JSON_DEPTH + b"]" * MAX_JSON_DEPTH
    assert parse_json(deep) is not None
    text = b'{"s": "[[[{{\\"]]", "e": "\\ud83d\\ude00", "n": -1.5e10, "i": ' + b"9" * 39 + b"}"
    assert parse_json(text) == {"s": '[[[{{"]]', "e": "\U0001f600", "n": -1.5e10, "i": int("9" * 39)}


def test_a_heartbeat_with_bad_surfaces_is_refused_and_the_page_keeps_working(client: TestClient) -> None:
    for surfaces, field in ((5, "surfaces"), ([5], "surfaces[0]"), ([{"path": 5}], "surfaces[0].path")):
        response = client.post("/heartbeat", json={"agent_id": "a2a-1", "surfaces": surfaces})
        _refused(response, field, "must be")
        _everything_reads(client)
    skills = [{"path": "/a2a/echo", "skill_id": "echo"}]
    assert client.post("/heartbeat", json={"agent_id": "a2a-1", "surfaces": skills}).status_code == 200
    state = client.get("/ui/state").json()
    assert state["agents"][0]["a2a"]["skills"] == [{"id": "echo", "path": "/a2a/echo"}]


def test_a_heartbeat_with_a_number_json_cannot_carry_is_refused_naming_it(client: TestClient) -> None:
    tool = b'{"function_name": "add", "capability": "add", "inputSchema": {"maximum": 1e999}}'
    body = b'{"agent_id": "calc-1", "tools": [' + tool + b"]}"
    _refused(client.post("/heartbeat", content=body, headers=JSON), "tools[0].inputSchema.maximum", "1e999")
    _everything_reads(client)


def test_a_console_push_json_cannot_show_is_refused_and_the_console_keeps_answering(
    client: TestClient,
) -> None:
    for row, field in (
        (b'["add", 1, 0, 1e999, {}]', "tools[0][3]"),  # infinite seconds
        (b'["add", 1, 0, 1e308, {}]', "tools[0][3]"),  # finite, but two of them sum to infinity
        (b'["add", 9007199254740993, 0, 0.1, {}]', "tools[0][1]"),  # past what the page counts exactly
    ):
        body = b'{"agent_id": "calc-1", "tools": [' + row + b"]}"
        _refused(client.post("/console/push", content=body, headers=JSON), field, "")
        _everything_reads(client)
    # a histogram key int() would refuse ("²" is a digit to str.isdigit) is not a bucket: left out
    odd = {"agent_id": "calc-1", "tools": [["add", 2, 0, 0.5, {"²": 1, "3": 2, "99999": 1}]]}
    assert client.post("/console/push", json=odd).status_code == 204
    tools = client.get("/ui/console").json()["tools"]
    assert [(t["tool"], t["calls"]) for t in tools] == [("add", 2)]


@pytest.mark.parametrize(
    ("path", "field"),
    [
        ("/ui/console?since=²", "since"),
        ("/ui/console?since=-1", "since"),
        ("/ui/console?since=" + "9" * 5000, "since"),
        ("/ui/events?limit=²", "limit"),
        ("/jobs?limit=²", None),
        ("/jobs?limit=" + "9" * 5000, None),
    ],
)
def test_query_numbers_are_checked_at_the_door(client: TestClient, path: str, field: str | None) -> None:
    response = client.get(path)
    assert response.status_code == 400, response.text
    body = response.json()
    name = path.split("?")[1].split("=", maxsplit=1)[0]
    if field is None:  # the job API answers in MCP Mesh's shape: {error}
        assert body["error"].startswith(f"{name}: must be an integer")
    else:
        assert body["field"] == field and "must be an integer" in body["message"]


def test_a_job_s_event_wait_that_is_not_a_number_is_refused(client: TestClient) -> None:
    job = client.post("/jobs", json={"capability": "add", "submitted_by": "me-1"}).json()["id"]
    for wait in ("x", "nan", "-1"):
        response = client.get(f"/jobs/{job}/events?wait={wait}")
        assert response.status_code == 400 and "wait" in response.json()["error"]
    assert client.get(f"/jobs/{job}/events?wait=0").status_code == 200


def test_deep_or_non_json_bodies_never_fail_any_json_route(client: TestClient) -> None:
    """Every JSON route answers a body nested far past any recursion limit, or holding NaN or a lone
    surrogate, with a 4xx (the edge's or the route's own): never a failure."""
    bodies = [b"[" * 200_000 + b"]" * 200_000, b'{"a": NaN}', b'{"a": "\\udfff"}', b'{"a": 1e400}']
    for path in ("/heartbeat", "/console/push", "/jobs", "/jobs/claim", "/jobs/batch"):
        for body in bodies:
            response = client.post(path, content=body, headers=JSON)
            assert 400 <= response.status_code < 500, (path, body[:20], response.text)
    _everything_reads(client)
