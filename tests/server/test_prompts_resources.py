"""Prompts, resources and completion on the wire, both protocol eras, against the content agent in process.

Bad inputs answer one clear JSON-RPC error: a missing or invalid prompt argument, an unknown prompt, a URI
nothing serves (SEP-2164: -32602 with `data.uri`), a prompt function that raises (-32603, one line).
"""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from mesh_framework import ConfigError, MeshApplication, WiringError
from mesh_framework.testing import MeshTestClient, mesh_client
from mesh_framework.testing.client import build_request

APP = Path(__file__).parent.parent / "apps/content_app"
ERAS = [pytest.param(True, id="2026-07-28"), pytest.param(False, id="legacy")]


@pytest.fixture
async def client() -> AsyncIterator[MeshTestClient]:
    async with mesh_client(MeshApplication.load("tests.apps.content_app", environ={})) as running:
        yield running


async def error_of(
    client: MeshTestClient, method: str, params: dict[str, Any], *, modern: bool
) -> dict[str, Any]:
    name = params.get("name") or params.get("uri")
    response = await client.request(method, params, modern=modern, name=name)
    body = response.json()
    assert "error" in body, body
    expected = (500 if body["error"]["code"] == -32603 else 400) if modern else 200
    assert response.status_code == expected
    return body["error"]  # type: ignore[no-any-return]


async def test_capabilities_declare_prompts_resources_and_completions(client: MeshTestClient) -> None:
    discovered = await client.result("server/discover")
    initialized = await client.result("initialize", {"protocolVersion": "2025-11-25"}, modern=False)
    for capabilities in (discovered["capabilities"], initialized["capabilities"]):
        assert capabilities["prompts"] == {"listChanged": False}
        assert capabilities["resources"] == {"listChanged": False, "subscribe": False}
        assert capabilities["completions"] == {}


@pytest.mark.parametrize("modern", ERAS)
async def test_prompts_are_listed_with_their_arguments(client: MeshTestClient, modern: bool) -> None:
    result = await client.result("prompts/list", modern=modern)
    prompts = {p["name"]: p for p in result["prompts"]}
    assert list(prompts) == ["triage", "greet", "flaky", "plan_trip", "incident_summary"]
    assert prompts["plan_trip"]["arguments"] == [{"name": "city", "required": True}]
    assert prompts["triage"]["title"] == "Incident triage"
    assert prompts["triage"]["arguments"] == [
        {"name": "service", "required": True, "description": "The service that misbehaves"},
        {"name": "severity", "required": False},
        {"name": "minutes", "required": False},
    ]
    assert prompts["incident_summary"]["description"] == "Summarize an incident for the status page"
    assert ("ttlMs" in result) is modern


@pytest.mark.parametrize("modern", ERAS)
async def test_a_component_method_prompt_converts_its_arguments(client: MeshTestClient, modern: bool) -> None:
    params = {"name": "triage", "arguments": {"service": "billing", "severity": "critical", "minutes": "2"}}
    result = await client.result("prompts/get", params, modern=modern, name="triage")
    assert result["description"] == "Triage an incident of one service."
    assert result["messages"] == [
        {
            "role": "user",
            "content": {"type": "text", "text": "Triage billing (critical), looking back 120 seconds."},
        },
        {"role": "assistant", "content": {"type": "text", "text": "I will start with the dashboards."}},
    ]


@pytest.mark.parametrize("modern", ERAS)
async def test_a_markdown_prompt_renders_its_body(client: MeshTestClient, modern: bool) -> None:
    params = {"name": "incident_summary", "arguments": {"service": "search", "impact": "slow results"}}
    result = await client.result("prompts/get", params, modern=modern, name="incident_summary")
    text = result["messages"][0]["content"]["text"]
    assert (
        text == "Write a short status-page summary for an incident of **search**.\nUsers saw: slow results."
    )
    params = {"name": "incident_summary", "arguments": {"service": "auth"}}
    result = await client.result("prompts/get", params, modern=modern, name="incident_summary")
    assert "Users saw" not in result["messages"][0]["content"]["text"]


@pytest.mark.parametrize("modern", ERAS)
@pytest.mark.parametrize(
    ("params", "code", "words"),
    [
        (
            {"name": "greet", "arguments": {}},
            -32602,
            "prompt 'greet' is missing the required argument(s): name",
        ),
        ({"name": "incident_summary"}, -32602, "missing the required argument(s): service"),
        (
            {"name": "nope", "arguments": {}},
            -32602,
            "Unknown prompt 'nope'. Available prompts: triage, greet",
        ),
        ({"name": "greet", "arguments": {"name": "A", "mood": "x"}}, -32602, "has no argument(s) mood"),
        (
            {"name": "triage", "arguments": {"service": "a", "severity": "mild"}},
            -32602,
            "argument 'severity' = 'mild' is invalid",
        ),
        ({"name": "triage", "arguments": {"service": "a", "minutes": "soon"}}, -32602, "argument 'minutes'"),
        ({"name": "flaky", "arguments": {}}, -32603, "Prompt 'flaky' failed: RuntimeError: the prompt store"),
    ],
)
async def test_bad_prompt_requests_get_one_clear_error(
    client: MeshTestClient, modern: bool, params: dict[str, Any], code: int, words: str
) -> None:
    error = await error_of(client, "prompts/get", params, modern=modern)
    assert error["code"] == code
    assert words in error["message"]
    assert "Traceback" not in error["message"] and "\n" not in error["message"]


@pytest.mark.parametrize("modern", ERAS)
async def test_resources_and_templates_are_listed(client: MeshTestClient, modern: bool) -> None:
    listed = (await client.result("resources/list", modern=modern))["resources"]
    assert [(r["uri"], r.get("mimeType")) for r in listed] == [
        ("file:///static/img/logo.png", "image/png"),
        ("file:///static/readme.md", "text/markdown"),
        ("config://app", "application/json"),
    ]
    assert listed[1]["size"] == (APP / "static/readme.md").stat().st_size
    templates = (await client.result("resources/templates/list", modern=modern))["resourceTemplates"]
    assert [(t["uriTemplate"], t["name"]) for t in templates] == [
        ("logs://{service}/{day}", "logs"),
        ("blob://{+path}", "blob"),
    ]


async def read(client: MeshTestClient, uri: str, *, modern: bool) -> list[dict[str, Any]]:
    result = await client.result("resources/read", {"uri": uri}, modern=modern, name=uri)
    assert ("ttlMs" in result) is modern
    return result["contents"]  # type: ignore[no-any-return]


@pytest.mark.parametrize("modern", ERAS)
async def test_resources_are_read_as_text_or_blob(client: MeshTestClient, modern: bool) -> None:
    [text] = await read(client, "file:///static/readme.md", modern=modern)
    assert text == {
        "uri": "file:///static/readme.md",
        "mimeType": "text/markdown",
        "text": (APP / "static/readme.md").read_text(),
    }
    [image] = await read(client, "file:///static/img/logo.png", modern=modern)
    assert image["mimeType"] == "image/png" and "text" not in image
    assert base64.b64decode(image["blob"]) == (APP / "static/img/logo.png").read_bytes()
    [config] = await read(client, "config://app", modern=modern)
    assert (config["mimeType"], config["text"]) == ("application/json", '{"mode":"test","replicas":2}')


@pytest.mark.parametrize("modern", ERAS)
async def test_templates_fill_their_variables(client: MeshTestClient, modern: bool) -> None:
    [logs] = await read(client, "logs://billing/7", modern=modern)
    assert logs == {
        "uri": "logs://billing/7",
        "mimeType": "text/plain",
        "text": "billing on day 07: 3 errors",
    }
    [blob] = await read(client, "blob://a/b%20c/d.bin", modern=modern)
    assert blob["mimeType"] == "application/octet-stream"
    assert base64.b64decode(blob["blob"]) == b"a/b c/d.bin\x00\xff"


@pytest.mark.parametrize("modern", ERAS)
@pytest.mark.parametrize(
    ("uri", "code", "words"),
    [
        ("logs://billing", -32602, "Resource not found: 'logs://billing'"),
        ("file:///etc/passwd", -32602, "Resource not found"),
        ("logs://billing/today", -32602, "argument 'day' = 'today' is invalid"),
    ],
)
async def test_a_uri_nothing_serves_is_an_error_naming_it(
    client: MeshTestClient, modern: bool, uri: str, code: int, words: str
) -> None:
    error = await error_of(client, "resources/read", {"uri": uri}, modern=modern)
    assert (error["code"], error["data"]) == (code, {"uri": uri})
    assert words in error["message"]


async def complete(client: MeshTestClient, ref: dict[str, str], name: str, value: str, **context: str) -> Any:
    params: dict[str, Any] = {"ref": ref, "argument": {"name": name, "value": value}}
    if context:
        params["context"] = {"arguments": context}
    return (await client.result("completion/complete", params))["completion"]


async def test_completion_from_literals_enums_front_matter_and_completers(client: MeshTestClient) -> None:
    prompt = {"type": "ref/prompt", "name": ""}
    assert (await complete(client, {**prompt, "name": "greet"}, "style", "f"))["values"] == ["formal"]
    assert (await complete(client, {**prompt, "name": "triage"}, "severity", ""))["values"] == [
        "low",
        "high",
        "critical",
    ]
    assert (await complete(client, {**prompt, "name": "triage"}, "service", "b"))["values"] == [
        "billing",
        "bookings",
    ]
    summary = await complete(client, {**prompt, "name": "incident_summary"}, "service", "SE")
    assert summary == {"values": ["search"], "total": 1, "hasMore": False}
    assert (await complete(client, {**prompt, "name": "greet"}, "name", "A"))["values"] == []
    logs = {"type": "ref/resource", "uri": "logs://{service}/{day}"}
    assert (await complete(client, logs, "service", "a"))["values"] == ["auth"]
    assert (await complete(client, logs, "service", "a", day="0"))["values"] == []


@pytest.mark.parametrize(
    ("params", "words"),
    [
        (
            {"ref": {"type": "ref/prompt", "name": "nope"}, "argument": {"name": "a", "value": ""}},
            "Unknown prompt",
        ),
        (
            {"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "x", "value": ""}},
            "no argument 'x'",
        ),
        (
            {"ref": {"type": "ref/resource", "uri": "x://{a}"}, "argument": {"name": "a", "value": ""}},
            "Unknown resource",
        ),
        (
            {"ref": {"type": "ref/tool", "name": "ping"}, "argument": {"name": "a", "value": ""}},
            "ref/prompt or",
        ),
        ({"argument": {"name": "a", "value": ""}}, "needs params.ref"),
    ],
)
async def test_bad_completion_requests(client: MeshTestClient, params: dict[str, Any], words: str) -> None:
    error = await error_of(client, "completion/complete", params, modern=True)
    assert error["code"] == -32602 and words in error["message"]


async def test_the_test_kit_gets_prompts_and_reads_resources(client: MeshTestClient) -> None:
    prompt = await client.get_prompt("greet", {"name": "Cy"})
    assert prompt["messages"][0]["content"]["text"] == "Hi Cy!"
    assert (await client.read_resource("config://app", modern=False))[0]["mimeType"] == "application/json"
    with pytest.raises(AssertionError, match="Resource not found"):
        await client.read_resource("config://none")


async def test_a_prompt_asks_the_client_for_input_first(client: MeshTestClient) -> None:
    first = {"name": "plan_trip", "arguments": {"city": "Oslo"}, "_meta": {}}
    body, headers = build_request("prompts/get", first, modern=True, name="plan_trip")
    body["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] = {"elicitation": {}}
    asked = (await client.http.post(client.path, json=body, headers=headers)).json()["result"]
    assert asked["resultType"] == "input_required"
    assert asked["inputRequests"]["dates"]["params"]["message"] == "When do you travel to Oslo?"
    again = {
        "name": "plan_trip",
        "arguments": {"city": "ignored"},
        "inputResponses": {"dates": {"action": "accept", "content": {"dates": "May 3-5"}}},
        "requestState": asked["requestState"],
    }
    done = await client.result("prompts/get", again, name="plan_trip")
    assert done["resultType"] == "complete"
    assert done["messages"][0]["content"]["text"] == "Plan a trip to Oslo on May 3-5."
    forged = {**again, "requestState": asked["requestState"][:-2] + "xx"}
    error = await error_of(client, "prompts/get", forged, modern=True)
    assert error["code"] == -32602 and "requestState" in error["message"]


@pytest.mark.parametrize(
    ("modern", "words"),
    [(True, "missing capabilities: elicitation"), (False, "needs protocol 2026-07-28")],
)
async def test_a_prompt_asking_for_input_needs_a_client_able_to_answer(
    client: MeshTestClient, modern: bool, words: str
) -> None:
    error = await error_of(
        client, "prompts/get", {"name": "plan_trip", "arguments": {"city": "Oslo"}}, modern=modern
    )
    assert error["code"] == -32602 and words in error["message"]


def test_a_malformed_markdown_prompt_stops_start_up_naming_file_and_line() -> None:
    with pytest.raises(ConfigError) as caught:
        MeshApplication.load(
            "tests.apps.content_app", environ={"MESH_PROMPTS__FOLDERS": '["broken_prompts"]'}
        )
    assert "broken_prompts/bad.md:3: invalid YAML front matter" in str(caught.value)


def test_missing_configured_folders_and_files_are_named_with_their_origin() -> None:
    environ = {"MESH_PROMPTS__FOLDERS": '["no_such_dir"]', "MESH_RESOURCES__FILES": '["static", "gone.txt"]'}
    with pytest.raises(ConfigError) as caught:
        MeshApplication.load("tests.apps.content_app", environ=environ)
    problems = caught.value.problems
    assert len(problems) == 2
    assert problems[0].startswith(
        "prompts.folders[0] = 'no_such_dir' (from environment variable MESH_PROMPTS__FOLDERS)"
    )
    assert problems[1].startswith("resources.files[1] = 'gone.txt'")


def test_code_problems_are_reported_together(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "badcontent"
    package.mkdir()
    (package / "__init__.py").write_text(
        "from mesh_framework import completer, mesh_agent, mesh_prompt, mesh_resource\n"
        "@mesh_agent(name='bad')\nclass Agent: ...\n"
        "@mesh_resource('logs://{service}')\ndef logs(name: str) -> str: return name\n"
        "@mesh_resource('config://x')\ndef needs(a: str) -> str: return a\n"
        "@mesh_prompt('twice')\ndef one() -> str: return ''\n"
        "@mesh_prompt('twice')\ndef two() -> str: return ''\n"
        "@completer('x', prompt='absent')\ndef c(value: str) -> list[str]: return []\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(WiringError) as caught:
        MeshApplication.load("badcontent", environ={})
    text = str(caught.value)
    assert "{service}, which is no parameter of the function" in text
    assert "resource 'config://x' has no URI variables, but the function requires a" in text
    assert "prompt name 'twice' is used twice" in text
    assert "@completer names prompt 'absent', which this agent does not serve" in text
    assert len(caught.value.problems) == 4


def test_annotations_that_do_not_resolve_stop_start_up_naming_function_and_annotation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mesh_framework.prompts.arguments import context_parameter

    package = tmp_path / "unresolved"
    package.mkdir()
    (package / "__init__.py").write_text(
        "from __future__ import annotations\n"
        "from typing import TYPE_CHECKING\n"
        "from mesh_framework import mesh_agent, mesh_prompt, mesh_resource\n"
        "if TYPE_CHECKING:\n    from mesh_framework import ToolContext\n"
        "@mesh_agent(name='unresolved')\nclass Agent: ...\n"
        "@mesh_prompt('ask')\ndef ask(topic: str, ctx: ToolContext) -> str: return topic\n"
        "@mesh_resource('notes://{name}')\ndef notes(name: str, ctx: ToolContext) -> str: return name\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(WiringError) as caught:
        MeshApplication.load("unresolved", environ={})
    problems = caught.value.problems
    assert len(problems) == 2, problems
    for function in ("unresolved.ask", "unresolved.notes"):
        assert any(
            f"{function}: the annotation of parameter 'ctx', 'ToolContext', does not resolve" in p
            and "not only under TYPE_CHECKING" in p
            for p in problems
        ), problems
    # the context parameter is never dropped quietly: reading it fails the same way
    import unresolved

    with pytest.raises(TypeError, match=r"unresolved\.ask: the annotation of parameter 'ctx'"):
        context_parameter(unresolved.ask)


def test_a_resource_function_taking_a_tool_context_stops_start_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "resourcectx"
    package.mkdir()
    (package / "__init__.py").write_text(
        "from mesh_framework import ToolContext, mesh_agent, mesh_resource\n"
        "@mesh_agent(name='resourcectx')\nclass Agent: ...\n"
        "@mesh_resource('notes://{name}')\ndef notes(name: str, ctx: ToolContext) -> str: return name\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(WiringError) as caught:
        MeshApplication.load("resourcectx", environ={})
    assert "takes a ToolContext ('ctx'), which a resource function does not receive" in str(caught.value)
