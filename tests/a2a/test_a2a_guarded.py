"""A2A on a real agent with tokens and limits: the skill a token is authorized for is the skill that runs
(a request naming two is refused), a task is its caller's (another token reads it as unknown, its ids and
context ids do not collide), what a task holds is bounded, bad JSON is a 400 with one log line at most, the
cards name the agent's own URL whatever Host was sent, and the handler reads JSON bodies only."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest

from tests.agents import AgentProcess, loopback, run_agent, run_mesh, wait_until

pytestmark = pytest.mark.timeout(90)

TOKENS = [
    {"token": "alice-token", "scopes": ["user"], "client_id": "alice"},
    {"token": "bob-token", "scopes": ["user"], "client_id": "bob"},
    {"token": "root-token", "scopes": ["user", "admin"], "client_id": "root"},
]
MAX_TASK_BYTES = 20_000
MAX_TASKS = 40


@pytest.fixture(scope="module")
def agent() -> Iterator[AgentProcess]:
    env = {
        "MESH_AUTH__TOKENS": json.dumps(TOKENS),
        "MESH_AUTH__REQUIRED_SCOPES": '["user"]',
        "MESH_A2A__MAX_TASK_BYTES": str(MAX_TASK_BYTES),
        "MESH_A2A__MAX_TASKS": str(MAX_TASKS),
    }
    with run_agent("tests.apps.a2a_guarded_app", env=env) as running:
        yield running
    assert "Traceback" not in running.text(), running.text()[-3000:]


@pytest.fixture(scope="module")
def bare() -> Iterator[AgentProcess]:
    """The same app's A2A routes served alone, without the agent's edge."""
    env = {"MESH_AUTH__TOKENS": json.dumps(TOKENS), "MESH_AUTH__REQUIRED_SCOPES": '["user"]'}
    command = [sys.executable, "-m", "tests.a2a_bare_server"]
    with run_mesh(["tests.apps.a2a_guarded_app"], env=env, mesh=command) as running:
        yield running


def post(
    agent: AgentProcess, path: str, body: Any, token: str | None = None, current: bool = True
) -> httpx2.Response:
    headers = {"A2A-Version": "1.0"} if current else {}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}-token"
    return loopback.post(agent.base_url + path, json=body, headers=headers, timeout=10)


def send(text: str | None = None, data: dict[str, Any] | None = None, **message: Any) -> dict[str, Any]:
    part = {"text": text} if data is None else {"data": data}
    wire = {"messageId": "m-1", "role": "ROLE_USER", "parts": [part], **message}
    return {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": wire}}


def rpc(method: str, **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 2, "method": method, "params": params}


def legacy(method: str, task_id: str, text: str = "", **params: Any) -> dict[str, Any]:
    message = {"role": "user", "parts": [{"type": "text", "text": text}]}
    return {
        "jsonrpc": "2.0",
        "id": 3,
        "method": method,
        "params": {"id": task_id, "message": message, **params},
    }


def frames(answer: httpx2.Response) -> list[dict[str, Any]]:
    if answer.headers["content-type"].startswith("application/json"):
        return [answer.json()]
    return [json.loads(line[5:]) for line in answer.text.splitlines() if line.startswith("data:")]


# -- skill authorization -----------------------------------------------------------------------------------


def test_a_request_naming_two_skills_is_refused_and_the_skill_authorized_is_the_one_run(
    agent: AgentProcess,
) -> None:
    confused = legacy("tasks/send", "c-1", "everything", metadata={"skill": "erase"})
    confused["params"]["message"]["metadata"] = {"skill": "echo"}  # what a guard reading it alone saw
    refused = post(agent, "/a2a", confused, "alice", current=False)
    assert refused.status_code == 400 and "ERASED" not in refused.text
    error = refused.json()["error"]
    assert error["code"] == -32602
    assert error["message"] == (
        "Invalid params: the request names two different skills: params.message.metadata.skill names "
        "'echo', params.metadata.skill names 'erase'; name one"
    )
    on_path = post(agent, "/a2a/echo", send("x", metadata={"skill": "erase"}), "alice")
    assert on_path.status_code == 400 and "the path names 'echo'" in on_path.json()["error"]["message"]
    both = send("x", metadata={"skill": "echo"})
    both["params"]["metadata"] = {"skill": "erase"}
    assert post(agent, "/a2a", both, "root").status_code == 400
    # one skill named, wherever: its scopes are the ones checked
    alone = legacy("tasks/send", "c-2", "everything", metadata={"skill": "erase"})
    assert post(agent, "/a2a", alone, "alice", current=False).status_code == 403
    assert post(agent, "/a2a", send("x", metadata={"skill": "erase"}), "alice").status_code == 403
    ran = post(agent, "/a2a", alone, "root", current=False).json()["result"]
    assert ran["artifacts"][0]["parts"][0]["text"] == "ERASED:everything"
    same = post(agent, "/a2a/echo", send("twice", metadata={"skill": "echo"}), "alice").json()
    assert same["result"]["task"]["artifacts"][0]["parts"][0]["text"] == "echo:twice"


# -- task ownership ----------------------------------------------------------------------------------------


def test_another_callers_task_reads_as_unknown_whatever_is_asked_of_it(agent: AgentProcess) -> None:
    mine = post(agent, "/a2a/echo", send("mine"), "alice").json()["result"]["task"]
    task_id = mine["id"]
    for body in (rpc("GetTask", id=task_id), rpc("CancelTask", id=task_id)):
        error = post(agent, "/a2a", body, "bob").json()["error"]
        assert (error["code"], error["message"]) == (-32001, "Task not found"), body["method"]
    overwrite = send("not yours", taskId=task_id, metadata={"skill": "echo"})
    assert post(agent, "/a2a", overwrite, "bob").json()["error"]["code"] == -32001
    subscribe = post(agent, "/a2a", {**rpc("SubscribeToTask", id=task_id)}, "bob")
    assert frames(subscribe)[-1]["error"]["code"] == -32001
    assert post(agent, "/a2a", rpc("GetTask", id=task_id), "alice").json()["result"] == mine


def test_client_chosen_ids_are_each_callers_own(agent: AgentProcess) -> None:
    started = post(agent, "/a2a/wait", legacy("tasks/send", "job-1", '{"steps": 1}'), "alice", False).json()
    assert started["result"]["status"]["state"] == "working"
    for method in ("tasks/cancel", "tasks/get", "tasks/resubscribe"):
        unknown = post(agent, "/a2a/wait", legacy(method, "job-1"), "bob", False).json()
        assert unknown["error"] == {"code": -32602, "message": "Unknown task id: job-1"}, method
    theirs = post(agent, "/a2a/echo", legacy("tasks/send", "job-1", "bob's"), "bob", False).json()["result"]
    assert theirs["artifacts"][0]["parts"][0]["text"] == "echo:bob's"
    still = post(agent, "/a2a/wait", legacy("tasks/get", "job-1"), "alice", False).json()["result"]
    assert still["status"]["state"] == "working" and still["artifacts"] == []
    again = post(agent, "/a2a/echo", legacy("tasks/get", "job-1"), "bob", False).json()["result"]
    assert again["artifacts"] == theirs["artifacts"]
    cancelled = post(agent, "/a2a/wait", legacy("tasks/cancel", "job-1"), "alice", False).json()["result"]
    assert cancelled["status"]["state"] == "canceled"
    # a context id the client chose: each caller lists only its own tasks in it
    for caller in ("alice", "bob"):
        post(agent, "/a2a/echo", send(caller, contextId="ctx-shared"), caller)
    listed = post(agent, "/a2a", rpc("ListTasks", contextId="ctx-shared"), "bob").json()["result"]["tasks"]
    assert [t["history"][0]["parts"][0]["text"] for t in listed] == ["bob"]


# -- limits ------------------------------------------------------------------------------------------------


def test_a_result_larger_than_the_task_may_hold_fails_the_task_saying_so(agent: AgentProcess) -> None:
    streamed = post(
        agent, "/a2a/flood", {**send('{"chunks": 100}'), "method": "SendStreamingMessage"}, "alice"
    )
    last = frames(streamed)[-1]["result"]["statusUpdate"]["status"]
    assert last["state"] == "TASK_STATE_FAILED"
    said = last["message"]["parts"][0]["text"]
    assert said.startswith(f"the result is larger than a2a.max_task_bytes (21000 > {MAX_TASK_BYTES} bytes)")
    task_id = frames(streamed)[-1]["result"]["statusUpdate"]["taskId"]
    kept = post(agent, "/a2a", rpc("GetTask", id=task_id), "alice").json()["result"]
    assert len(json.dumps(kept)) < MAX_TASK_BYTES * 2
    plain = post(agent, "/a2a/big", send('{"size": 50000}'), "alice").json()["result"]["task"]
    assert plain["status"]["state"] == "TASK_STATE_FAILED" and "artifacts" not in plain
    assert "(50000 > 20000 bytes)" in plain["status"]["message"]["parts"][0]["text"]
    old = post(agent, "/a2a/big", legacy("tasks/send", "big-1", '{"size": 50000}'), "alice", False).json()
    assert old["result"]["status"]["state"] == "failed"
    small = post(agent, "/a2a/big", send(data={"size": 100}), "alice").json()["result"]["task"]
    assert small["artifacts"][0]["parts"][0]["text"] == "y" * 100


def test_a_tasks_oldest_history_goes_past_the_byte_bound(agent: AgentProcess) -> None:
    body = {**send('{"n": 200}'), "method": "SendStreamingMessage"}
    streamed = frames(post(agent, "/a2a/chatter", body, "alice"))
    assert streamed[-1]["result"]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"
    task_id = streamed[-1]["result"]["statusUpdate"]["taskId"]
    kept = post(agent, "/a2a", rpc("GetTask", id=task_id), "alice").json()["result"]
    assert len(json.dumps(kept)) < MAX_TASK_BYTES * 1.25  # JSON spells a task a little longer
    said = [m["parts"][0]["text"][:4] for m in kept["history"] if m["role"] == "ROLE_AGENT"]
    assert said[-1] == "0200" and "0001" not in said and 20 < len(said) < 40
    assert kept["artifacts"][0]["parts"][0]["text"] == "done"


# -- bad input ---------------------------------------------------------------------------------------------


def test_json_that_cannot_be_read_is_a_400_and_one_log_line(bare: AgentProcess, agent: AgentProcess) -> None:
    message = '{"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "\\ud800"}]}'
    send_it = '{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": %s}}'
    bodies = {
        "lone surrogate": send_it % message,
        "NaN": '{"jsonrpc": "2.0", "id": NaN, "method": "GetTask", "params": {"id": "x"}}',
        "Infinity": '{"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": Infinity}}',
        "too large": '{"jsonrpc": "2.0", "id": 1e999, "method": "GetTask", "params": {}}',
        "deep": "[" * 100_000 + "]" * 100_000,
        "deeper than 64": '{"jsonrpc": "2.0", "id": 1, "params": {"x": ' + "[" * 70 + "]" * 70 + "}}",
    }
    said = {
        "lone surrogate": "a string holds a lone surrogate",
        "NaN": "NaN is not JSON",
        "Infinity": "Infinity is not JSON",
        "too large": "too large for a 64-bit float",
        "deep": "nested deeper than 64 levels",
        "deeper than 64": "nested deeper than 64 levels",
    }
    headers = {"Content-Type": "application/json", "Authorization": "Bearer alice-token"}
    for name, text in bodies.items():
        content = text.encode("utf-8")
        for path in ("/a2a", "/a2a/echo"):  # the handler alone: its own JSON-RPC parse error
            answer = loopback.post(bare.base_url + path, content=content, headers=headers, timeout=10)
            assert answer.status_code == 400, (name, answer.text)
            error = answer.json()["error"]
            assert error["code"] == -32700 and said[name] in error["message"], (name, error)
        served = loopback.post(agent.base_url + "/a2a", content=content, headers=headers, timeout=10)
        assert served.status_code == 400, (name, served.text)  # the agent: its edge or the handler
    # params the SDK cannot read: its JSON-RPC error, and one warning in the log
    for server in (bare, agent):
        seen = len(server.output)
        unreadable = post(server, "/a2a", rpc("SendMessage", message=5), "alice")
        assert unreadable.status_code == 200 and unreadable.json()["error"]["code"] == -32602
        wait_until(lambda server=server, seen=seen: "Code=-32602" in "".join(server.output[seen:]))
        logged = [line for line in server.output[seen:] if "jsonrpc_dispatcher" in line]
        assert len(logged) == 1 and "WARNING" in logged[0] and "parseError" in logged[0], logged
        assert "Traceback" not in server.text() and " ERROR " not in server.text()


def test_the_cards_name_the_agents_own_url_whatever_host_was_sent(agent: AgentProcess) -> None:
    forged = {"Host": "localhost:1"}
    card = loopback.get(agent.base_url + "/.well-known/agent-card.json", headers=forged, timeout=10).json()
    assert card["supportedInterfaces"][0]["url"] == agent.base_url + "/a2a"
    for name in ("agent.json", "agent-card.json"):
        one = loopback.get(
            agent.base_url + f"/a2a/echo/.well-known/{name}", headers=forged, timeout=10
        ).json()
        url = one["url"] if name == "agent.json" else one["supportedInterfaces"][0]["url"]
        assert url == agent.base_url + "/a2a/echo"


def test_a_public_url_is_what_the_cards_advertise() -> None:
    env = {
        "MESH_A2A__PUBLIC_URL": "https://agents.example.com/mesh/",
        "MESH_AUTH__TOKENS": json.dumps(TOKENS),
    }
    with run_agent("tests.apps.a2a_guarded_app", env=env) as served:
        card = loopback.get(served.base_url + "/.well-known/agent-card.json", timeout=10).json()
        assert card["supportedInterfaces"][0]["url"] == "https://agents.example.com/mesh/a2a"


def test_json_bodies_only_on_the_a2a_endpoint(agent: AgentProcess) -> None:
    body = json.dumps(send("hi"))
    for content_type in (
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
    ):
        answer = loopback.post(
            agent.base_url + "/a2a/echo",
            content=body,
            headers={"Content-Type": content_type, "Authorization": "Bearer alice-token"},
            timeout=10,
        )
        assert answer.status_code == 415, content_type


def test_the_a2a_handler_alone_parses_no_body_but_json(bare: AgentProcess) -> None:
    """Mounted without the agent's edge, the handler still never reads a text/plain or form body."""
    body = json.dumps(send("hi"))
    auth = {"A2A-Version": "1.0", "Authorization": "Bearer alice-token"}
    for content_type in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data", None):
        headers = {**auth, **({"Content-Type": content_type} if content_type else {})}
        refused = loopback.post(bare.base_url + "/a2a/echo", content=body, headers=headers, timeout=10)
        assert refused.status_code == 415, content_type
        assert refused.json()["error"] == {
            "code": -32600,
            "message": "Invalid Request: send the JSON-RPC request as Content-Type: application/json",
        }
    headers = {**auth, "Content-Type": "application/json; charset=utf-8"}
    taken = loopback.post(bare.base_url + "/a2a/echo", content=body, headers=headers, timeout=10).json()
    assert taken["result"]["task"]["artifacts"][0]["parts"][0]["text"] == "echo:hi"


def test_the_number_of_tasks_kept_is_bounded(agent: AgentProcess) -> None:
    first = post(agent, "/a2a/echo", send("first"), "alice").json()["result"]["task"]["id"]
    for n in range(MAX_TASKS + 5):
        post(agent, "/a2a/echo", send(f"more {n}"), "alice")
    assert post(agent, "/a2a", rpc("GetTask", id=first), "alice").json()["error"]["code"] == -32001


def test_a_message_the_sdk_helper_refuses_runs_as_a_task(agent: AgentProcess) -> None:
    """An empty text part, or a message in another role, is still a message: the task runs (it was a 500)."""
    for wire in (
        {"role": "ROLE_USER", "parts": [{"text": ""}]},
        {"role": "ROLE_AGENT", "parts": [{"text": "a"}]},
    ):
        body = {**send(), "method": "SendStreamingMessage"}
        body["params"]["message"].update(wire)
        answer = post(agent, "/a2a/echo", body, "alice")
        assert answer.status_code == 200, answer.text
        assert frames(answer)[-1]["result"]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"
