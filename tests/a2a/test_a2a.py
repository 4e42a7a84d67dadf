"""A2A on real processes: our agent's skills served to the official `a2a-sdk` client (the current
specification) and in MCP Mesh's `tasks/*` dialect, our `A2aClient` against an `a2a-sdk` server and
against our own agent, both dialects, and bad input (no skills, unknown task ids, bad JSON-RPC, a peer
that stalls mid-stream). An agent that only answers requests (auth configured, no skills) is served in the
test's process (`mesh_client`): its process would cost more to start than its answers."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest

from mesh_framework import MeshApplication
from mesh_framework.a2a import A2aClient, A2aError
from mesh_framework.testing import mesh_client
from tests.agents import ROOT, AgentProcess, agent_env, loopback, run_agent, run_registry, stop, wait_until
from tests.cli_in_process import run_cli_in_process

pytestmark = pytest.mark.timeout(90)


@pytest.fixture(scope="module")
def skills() -> Iterator[AgentProcess]:
    with run_agent("tests.apps.a2a_app") as agent:
        yield agent


@pytest.fixture(scope="module")
def sdk_peer() -> Iterator[str]:
    """An agent made with a2a-sdk alone; yields its base URL."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.a2a_sdk_peer"],
        cwd=ROOT,
        env=agent_env(),
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("serving "), line
        yield line.split()[1]
    finally:
        stop(process)


def rpc(url: str, body: Any, **kwargs: Any) -> httpx2.Response:
    return loopback.post(url, json=body, timeout=10, **kwargs)


def legacy_send(method: str, task_id: str, text: str) -> dict[str, Any]:
    message = {"role": "user", "parts": [{"type": "text", "text": text}]}
    return {"jsonrpc": "2.0", "id": 7, "method": method, "params": {"id": task_id, "message": message}}


def client(url: str, **kwargs: Any) -> A2aClient:
    http = httpx2.AsyncClient(trust_env=False)
    return A2aClient("peer", url=url, http=lambda: http, **kwargs)


# -- served: the official a2a-sdk client against our agent -------------------------------------------------


async def test_the_a2a_sdk_client_reads_our_card_and_sends_a_message(skills: AgentProcess) -> None:
    import httpx  # the SDK's client (slow to import) here, not at collection
    from a2a.client import ClientConfig, create_client
    from a2a.helpers import get_artifact_text, new_text_message
    from a2a.types import GetTaskRequest, Role, SendMessageRequest, TaskState

    async with httpx.AsyncClient(trust_env=False) as http:
        sdk = await create_client(
            skills.base_url, client_config=ClientConfig(streaming=False, httpx_client=http)
        )
        card = sdk._card  # what the sdk resolved from our /.well-known/agent-card.json
        assert card.name == "a2a-agent" and card.version == "1.2.0"
        assert {s.id for s in card.skills} == {"echo", "words", "slow-count", "add", "crunch", "fail"}
        echo = next(s for s in card.skills if s.id == "echo")
        assert list(echo.tags) == ["demo"] and list(echo.examples) == ["hello"]
        message = new_text_message("hello", role=Role.ROLE_USER)
        message.metadata.update({"skill": "echo"})
        [answer] = [event async for event in sdk.send_message(SendMessageRequest(message=message))]
        task = answer.task
        assert task.status.state == TaskState.TASK_STATE_COMPLETED
        assert get_artifact_text(task.artifacts[0]) == "echo:hello"
        again = await sdk.get_task(GetTaskRequest(id=task.id))
        assert get_artifact_text(again.artifacts[0]) == "echo:hello"
        await sdk.close()


async def test_the_a2a_sdk_client_streams_a_stream_tool_chunk_by_chunk(skills: AgentProcess) -> None:
    import httpx
    from a2a.client import ClientConfig, create_client
    from a2a.helpers import get_artifact_text, new_text_message
    from a2a.types import Role, SendMessageRequest, TaskState

    async with httpx.AsyncClient(trust_env=False) as http:
        sdk = await create_client(
            skills.base_url, client_config=ClientConfig(streaming=True, httpx_client=http)
        )
        message = new_text_message("one two three", role=Role.ROLE_USER)
        message.metadata.update({"skill": "words"})
        events = [event async for event in sdk.send_message(SendMessageRequest(message=message))]
        chunks = [
            get_artifact_text(e.artifact_update.artifact)
            for e in events
            if e.HasField("artifact_update") and e.artifact_update.artifact.parts
        ]
        assert chunks == ["one ", "two ", "three "]
        assert events[-1].status_update.status.state == TaskState.TASK_STATE_COMPLETED
        await sdk.close()


def test_a_sent_task_reads_the_same_when_fetched_again(skills: AgentProcess) -> None:
    """A plain skill's task is answered without the SDK's machinery: its JSON is what GetTask reads back."""
    headers = {"A2A-Version": "1.0"}
    for skill, text, state in (
        ("echo", "same", "TASK_STATE_COMPLETED"),
        ("fail", "now", "TASK_STATE_FAILED"),
    ):
        message = {"messageId": "m-9", "role": "ROLE_USER", "parts": [{"text": text}], "metadata": {"k": 1}}
        body = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message}}
        sent = rpc(skills.base_url + f"/a2a/{skill}", body, headers=headers).json()["result"]["task"]
        assert sent["status"]["state"] == state
        get = {"jsonrpc": "2.0", "id": 2, "method": "GetTask", "params": {"id": sent["id"]}}
        assert rpc(skills.base_url + "/a2a", get, headers=headers).json()["result"] == sent


def test_progress_becomes_task_status_updates_and_failures_a_failed_task(skills: AgentProcess) -> None:
    url = skills.base_url + "/a2a/slow-count"
    message = {"messageId": "m1", "role": "ROLE_USER", "parts": [{"data": {"n": 3}}]}
    body = {"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage", "params": {"message": message}}
    answer = rpc(url, body, headers={"A2A-Version": "1.0"})
    frames = [json.loads(line[5:]) for line in answer.text.splitlines() if line.startswith("data:")]
    progress = [
        f["result"]["statusUpdate"]["status"]["message"]["parts"][0]["text"]
        for f in frames
        if "message" in f["result"].get("statusUpdate", {}).get("status", {})
    ]
    assert progress == ["counted 1", "counted 2", "counted 3"]
    assert frames[-1]["result"]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"
    failed = rpc(skills.base_url + "/a2a/fail", legacy_send("tasks/send", "f-1", "now")).json()["result"]
    assert failed["status"]["state"] == "failed"
    assert "asked to fail: now" in failed["status"]["message"]["parts"][0]["text"]


async def test_a_background_tool_is_a_task_its_progress_status_updates_and_cancel_stops_its_job(
    skills: AgentProcess,
) -> None:
    current = client(skills.base_url)
    events = [e async for e in current.stream(data={"steps": 3}, skill="crunch")]
    progress = [e.text for e in events if e.kind == "status" and e.text]
    assert progress[-1] == "step 3" and set(progress) <= {"step 1", "step 2", "step 3"}
    assert events[-1].state == "completed" and '"steps":3' in "".join(e.text for e in events)
    legacy = client(skills.base_url + "/a2a/crunch", dialect="mcp-mesh")
    started = await legacy.send('{"steps": -1}', wait=False)
    assert started.state == "working"
    canceled = await legacy.cancel(started.id)
    assert canceled.state == "canceled"
    assert (await legacy.get_task(started.id)).state == "canceled"
    stopped = wait_until(lambda: json.loads(call(skills, "get_server_status", {}))["status"] == "cancelled")
    assert stopped


# -- served: MCP Mesh's dialect ------------------------------------------------------------------------------


def test_mcp_mesh_dialect_card_send_get_and_subscribe(skills: AgentProcess) -> None:
    surface = skills.base_url + "/a2a/echo"
    card = loopback.get(surface + "/.well-known/agent.json", timeout=10).json()
    assert card["url"] == surface and [s["id"] for s in card["skills"]] == ["echo"]
    assert card["authentication"] == {"schemes": []}
    sent = rpc(surface, legacy_send("tasks/send", "t-1", "hello")).json()
    assert sent["id"] == 7
    task = sent["result"]
    assert task["id"] == "t-1" and task["status"]["state"] == "completed"
    assert task["artifacts"] == [
        {"name": "result", "parts": [{"type": "text", "text": "echo:hello"}], "index": 0}
    ]
    anonymous = legacy_send("tasks/send", "", "no id")
    del anonymous["params"]["id"]
    answer = rpc(surface, anonymous).json()["result"]  # MCP Mesh's default id: a UUID4
    assert len(answer["id"]) == 36 and answer["artifacts"][0]["parts"][0]["text"] == "echo:no id"
    got = rpc(surface, {"jsonrpc": "2.0", "id": 8, "method": "tasks/get", "params": {"id": "t-1"}}).json()
    assert got["result"] == task  # what tasks/send answered is what tasks/get reads back
    failed = rpc(skills.base_url + "/a2a/fail", legacy_send("tasks/send", "f-2", "x")).json()["result"]
    again = {"jsonrpc": "2.0", "id": 9, "method": "tasks/get", "params": {"id": "f-2"}}
    assert rpc(skills.base_url + "/a2a/fail", again).json()["result"] == failed
    stream = rpc(skills.base_url + "/a2a/words", legacy_send("tasks/sendSubscribe", "t-2", "a b"))
    assert stream.headers["content-type"].startswith("text/event-stream")
    frames = [json.loads(line[5:])["result"] for line in stream.text.splitlines() if line.startswith("data:")]
    assert [f["artifact"]["parts"][0]["text"] for f in frames if "artifact" in f] == ["a ", "b "]
    assert frames[-1]["status"]["state"] == "completed" and frames[-1]["final"] is True


def test_resubscribe_starts_from_the_current_state_of_a_task(skills: AgentProcess) -> None:
    surface = skills.base_url + "/a2a/crunch"
    started = rpc(surface, legacy_send("tasks/send", "r-1", '{"steps": 4}')).json()["result"]
    assert started["status"]["state"] == "working"
    again = {"jsonrpc": "2.0", "id": 3, "method": "tasks/resubscribe", "params": {"id": "r-1"}}
    stream = rpc(surface, again)
    frames = [json.loads(line[5:])["result"] for line in stream.text.splitlines() if line.startswith("data:")]
    assert frames[0]["id"] == "r-1" and "status" in frames[0]
    assert frames[-1]["status"]["state"] == "completed" and frames[-1]["final"] is True
    done = rpc(surface, again)  # an ended task: its final state, then the stream closes
    [only] = [json.loads(line[5:])["result"] for line in done.text.splitlines() if line.startswith("data:")]
    assert only["status"]["state"] == "completed" and only["final"] is True
    unknown = rpc(surface, {**again, "params": {"id": "nope"}}).json()
    assert unknown["error"] == {"code": -32602, "message": "Unknown task id: nope"}


def test_two_arguments_come_from_a_json_text_or_a_data_part(skills: AgentProcess) -> None:
    add = skills.base_url + "/a2a/add"
    assert (
        rpc(add, legacy_send("tasks/send", "a-1", '{"a": 2, "b": 3}')).json()["result"]["artifacts"][0][
            "parts"
        ][0]["text"]
        == "5"
    )
    refused = rpc(add, legacy_send("tasks/send", "a-2", "two and three")).json()["result"]
    assert refused["status"]["state"] == "failed"
    assert "skill 'add' takes ['a', 'b']" in refused["status"]["message"]["parts"][0]["text"]


# -- bad input -----------------------------------------------------------------------------------------------


def test_unknown_task_ids_are_clear_errors_in_both_dialects(skills: AgentProcess) -> None:
    surface = skills.base_url + "/a2a/echo"
    legacy = rpc(surface, {"jsonrpc": "2.0", "id": 3, "method": "tasks/get", "params": {"id": "nope"}}).json()
    assert legacy["error"] == {"code": -32602, "message": "Unknown task id: nope"}
    missing = rpc(surface, {"jsonrpc": "2.0", "id": 4, "method": "tasks/cancel", "params": {}}).json()
    assert missing["error"]["message"] == "Invalid params: 'id' is required for tasks/cancel"
    current = rpc(
        skills.base_url + "/a2a",
        {"jsonrpc": "2.0", "id": 5, "method": "GetTask", "params": {"id": "nope"}},
        headers={"A2A-Version": "1.0"},
    ).json()
    assert current["error"]["code"] == -32001 and current["error"]["message"] == "Task not found"


def test_bad_json_rpc_is_answered_not_raised(skills: AgentProcess) -> None:
    json_type = {"Content-Type": "application/json"}
    bad = loopback.post(skills.base_url + "/a2a/echo", content=b"{not json", headers=json_type, timeout=10)
    assert bad.status_code == 400  # the agent's edge refuses it (the handler's own answer: test_a2a_guarded)
    for not_an_object in ([], "x", 3):
        refused = rpc(skills.base_url + "/a2a/echo", not_an_object)
        assert refused.status_code == 400 and refused.json()["error"]["code"] == -32600
    no_message = rpc(
        skills.base_url + "/a2a/echo", {"jsonrpc": "2.0", "id": 2, "method": "tasks/send", "params": {}}
    )
    assert no_message.json()["error"] == {
        "code": -32602,
        "message": "Invalid params: 'message' with a list of 'parts' is required for tasks/send",
    }
    bad_params = {"jsonrpc": "2.0", "id": 3, "method": "SendMessage", "params": "x"}
    invalid = rpc(skills.base_url + "/a2a/echo", bad_params, headers={"A2A-Version": "1.0"}).json()
    assert invalid["error"] == {"code": -32602, "message": "Invalid params: 'params' must be an object"}
    unknown = rpc(skills.base_url + "/a2a", {"jsonrpc": "2.0", "id": 1, "method": "Teleport", "params": {}})
    assert unknown.json()["error"]["code"] == -32601
    no_skill = rpc(skills.base_url + "/a2a/nope", legacy_send("tasks/send", "x", "hi"))
    assert no_skill.status_code == 404
    assert (
        "no A2A skill 'nope'; this agent serves: echo, words, slow-count, add, crunch, fail" in no_skill.text
    )
    several = rpc(
        skills.base_url + "/a2a",
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "SendMessage",
            "params": {"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "hi"}]}},
        },
        headers={"A2A-Version": "1.0"},
    ).json()["result"]["task"]
    assert several["status"]["state"] == "TASK_STATE_FAILED"
    assert "name one in the message metadata ('skill')" in several["status"]["message"]["parts"][0]["text"]
    assert "Traceback" not in skills.text()


async def test_with_auth_configured_the_cards_stay_public_and_calls_need_a_token_with_the_scopes() -> None:
    tokens = '[{"token": "good", "scopes": ["a2a"], "client_id": "c"}, {"token": "weak", "client_id": "w"}]'
    env = {"MESH_AUTH__TOKENS": tokens, "MESH_AUTH__REQUIRED_SCOPES": '["a2a"]'}
    secured = MeshApplication.load("tests.apps.a2a_app", environ=env)  # its HTTP app, in this process
    async with mesh_client(secured) as served:
        http = served.http
        card = (await http.get("/.well-known/agent-card.json")).json()
        assert card["securitySchemes"] == {"bearer": {"httpAuthSecurityScheme": {"scheme": "Bearer"}}}
        legacy_card = (await http.get("/a2a/echo/.well-known/agent.json")).json()
        assert legacy_card["authentication"] == {"schemes": ["bearer"]}
        body = legacy_send("tasks/send", "s-1", "hi")
        missing = await http.post("/a2a/echo", json=body)
        assert missing.status_code == 401 and missing.json()["error"]["code"] == -32001
        bad = await http.post("/a2a/echo", json=body, headers={"Authorization": "Bearer nope"})
        assert bad.status_code == 401 and "not valid" in bad.json()["error"]["message"]
        weak = await http.post("/a2a/echo", json=body, headers={"Authorization": "Bearer weak"})
        assert weak.status_code == 403 and weak.json()["error"]["message"].endswith("scope(s) a2a")
        base = str(http.base_url).rstrip("/")
        good = A2aClient("peer", url=base, http=lambda: http, token="good")
        assert (await good.send("hi", skill="echo")).text == "echo:hi"
        legacy = A2aClient("peer", url=base + "/a2a/echo", http=lambda: http, dialect="mcp-mesh")
        with pytest.raises(A2aError, match="authentication required; set a2a.peers.peer.token"):
            await legacy.send("hi")


async def test_an_agent_without_skills_answers_card_requests_with_a_clear_404() -> None:
    plain = MeshApplication.load("tests.apps.stream_app", environ={})  # its HTTP app, in this process
    async with mesh_client(plain) as served:
        for path in (
            "/.well-known/agent-card.json",
            "/.well-known/agent.json",
            "/a2a/chat/.well-known/agent.json",
        ):
            answer = await served.http.get(path)
            assert answer.status_code == 404
            assert answer.json()["error"].startswith(
                "agent 'streamer' serves no A2A skills; mark a tool with"
            )


# -- consumed: our A2aClient ------------------------------------------------------------------------------


async def test_our_client_against_an_a2a_sdk_server(sdk_peer: str) -> None:
    peer = client(sdk_peer)
    task = await peer.send("hi")
    assert peer.dialect == "current"
    assert (task.state, task.text) == ("completed", "sdk-echo:hi")
    assert (await peer.get_task(task.id)).text == "sdk-echo:hi"
    events = [event async for event in peer.stream("yo")]
    assert [e.text for e in events if e.kind == "artifact"] == ["sdk-echo:yo"]
    assert events[-1].state == "completed" and events[-1].final
    with pytest.raises(A2aError, match=r"refused GetTask: Task not found \(code -32001\)"):
        await peer.get_task("nope")


async def test_a_peer_that_stalls_mid_stream_is_an_error_naming_the_timeout(sdk_peer: str) -> None:
    peer = client(sdk_peer, timeout=1.0)
    seen: list[str] = []
    with pytest.raises(A2aError, match=r"sent nothing for 1.0s mid-stream \(after 3 event\(s\)\)"):
        async for event in peer.stream("slow please"):
            seen.append(event.kind)
    assert "artifact" in seen


async def test_our_client_speaks_both_dialects_to_our_agent(skills: AgentProcess) -> None:
    legacy = client(skills.base_url + "/a2a/echo", dialect="mcp-mesh")
    task = await legacy.send("x")
    assert (task.id.startswith("c-"), task.state, task.text) == (True, "completed", "echo:x")
    current = client(skills.base_url)
    assert (await current.send("y", skill="echo")).text == "echo:y" and current.dialect == "current"
    added = await current.send(data={"a": 1, "b": 2}, skill="add")
    assert added.text == "3"
    chunks = [e.text async for e in legacy_stream(skills)]
    assert chunks == ["p ", "q "]
    nowhere = client("http://127.0.0.1:9/a2a")
    with pytest.raises(A2aError, match="cannot be reached"):
        await nowhere.send("x")


async def test_a_peer_that_never_answers_is_an_error_naming_the_timeout() -> None:
    with socket.socket() as silent:  # accepts connections (the backlog), never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/a2a"
        peer = client(url, dialect="current", timeout=0.3)
        with pytest.raises(A2aError, match=r"did not answer SendMessage within 0.3s"):
            await peer.send("hello?")
        auto = client(url, timeout=0.3)  # reading its card first
        with pytest.raises(A2aError, match=r"agent-card.json did not answer within 0.3s"):
            await auto.send("hello?")


async def test_a_peer_found_in_the_registry_is_looked_up_again_once_it_stops_answering(
    skills: AgentProcess,
) -> None:
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))  # bound, not listening: connections are refused
        answers = iter(
            [f"http://127.0.0.1:{closed.getsockname()[1]}/a2a/echo", skills.base_url + "/a2a/echo"]
        )
        looked_up: list[str] = []

        async def locate(skill: str) -> str:
            looked_up.append(skill)
            return next(answers)

        http = httpx2.AsyncClient(trust_env=False)
        peer = A2aClient("echo", url=None, http=lambda: http, locate=locate)
        with pytest.raises(A2aError, match="looked up in the registry again on the next call"):
            await peer.send("first")
        assert (await peer.send("second")).text == "echo:second"
        assert looked_up == ["echo", "echo"]


async def legacy_stream(skills: AgentProcess) -> Any:
    words = client(skills.base_url + "/a2a/words", dialect="mcp-mesh")
    async for event in words.stream("p q"):
        if event.kind == "artifact":
            yield event


def test_a_tool_gets_its_a2a_client_injected_and_pointed_by_settings(
    skills: AgentProcess, sdk_peer: str
) -> None:
    env = {
        "MESH_A2A__PEERS__ECHO__URL": sdk_peer,
        "MESH_A2A__PEERS__WORDS__URL": skills.base_url + "/a2a/words",
    }
    with run_agent("tests.apps.a2a_app", env=env) as consumer:
        asked = call(consumer, "ask_peer", {"text": "via-settings"})
        assert asked == "completed:sdk-echo:via-settings"
        assert call(consumer, "stream_peer", {"text": "x y z"}) == "x |y |z "
        schema = tool_schema(consumer, "ask_peer")
        assert list(schema["properties"]) == ["text"]


def test_our_registry_lists_a2a_surfaces_and_a_peer_is_found_there_by_skill_id(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with run_registry() as registry:
        env = {"MCP_MESH_REGISTRY_URL": registry.base_url, "MCP_MESH_HEALTH_INTERVAL": "1"}
        with run_agent("tests.apps.a2a_app", env=env) as agent:

            def listed() -> list[dict[str, Any]]:
                return loopback.get(registry.base_url + "/a2a/agents", timeout=5).json()["surfaces"]  # type: ignore[no-any-return]

            surfaces = wait_until(listed)
            add = next(s for s in surfaces if s["skill_id"] == "add")  # type: ignore[attr-defined]
            assert add["public_url"] == agent.base_url + "/a2a/add" and add["path"] == "/a2a/add"
            assert add["agent_card_url"] == agent.base_url + "/a2a/add/.well-known/agent.json"
            row = next(a for a in loopback.get(registry.base_url + "/agents", timeout=5).json()["agents"])
            assert (row["a2a_producer"], row["a2a_consumer"]) == (True, True)
            listed_json = run_cli_in_process(
                ["list", "--json", "--registry-url", registry.base_url], monkeypatch
            )
            assert listed_json.returncode == 0, listed_json.stderr
            [summary] = json.loads(listed_json.stdout)["agents"]  # `mesh list --json`
            assert (summary["a2a_producer"], summary["a2a_consumer"]) == (True, True)
            # the mesh page
            [shown] = loopback.get(registry.base_url + "/ui/state", timeout=5).json()["agents"]
            assert shown["a2a"]["consumer"] is True
            assert {"id": "add", "path": "/a2a/add"} in shown["a2a"]["skills"]
            assert call(agent, "sum_by_registry", {"a": 4, "b": 5}) == "completed:9"


def call(agent: AgentProcess, tool: str, arguments: dict[str, Any]) -> str:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }
    answer = loopback.post(
        agent.mcp_url, json=body, headers={"Accept": "application/json, text/event-stream"}, timeout=15
    ).json()["result"]
    assert not answer.get("isError"), answer
    return str(answer["content"][0]["text"])


def tool_schema(agent: AgentProcess, tool: str) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    tools = loopback.post(
        agent.mcp_url, json=body, headers={"Accept": "application/json, text/event-stream"}, timeout=15
    ).json()["result"]["tools"]
    return next(t["inputSchema"] for t in tools if t["name"] == tool)  # type: ignore[no-any-return]


def test_mesh_tool_a2a_true_is_a_skill_with_the_tools_defaults_and_mesh_a2a_wins() -> None:
    from mesh_framework import mesh_a2a, mesh_tool
    from mesh_framework.a2a.a2a_marks import A2aSkillSpec, skill_mark
    from mesh_framework.decorators import TOOL_ATTR

    @mesh_tool(a2a=True, owner="docs")
    async def echo(text: str) -> str:
        return text

    @mesh_tool(a2a=True)
    @mesh_a2a("shout-skill", tags=["loud"])
    async def shout(text: str) -> str:
        return text.upper()

    @mesh_tool()
    async def quiet(text: str) -> str:
        return text

    spec = getattr(echo, TOOL_ATTR)
    assert skill_mark(spec) == A2aSkillSpec()
    assert dict(spec.kwargs) == {"owner": "docs"}  # a2a is read by the A2A feature, not advertised
    shouted = skill_mark(getattr(shout, TOOL_ATTR))
    assert shouted is not None and (shouted.skill_id, shouted.tags) == ("shout-skill", ("loud",))
    assert skill_mark(getattr(quiet, TOOL_ATTR)) is None
