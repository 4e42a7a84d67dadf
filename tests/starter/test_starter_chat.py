"""The starter's chat page and its stream route (the browser test is test_starter_chat_page.py): the page
is served as HTML (a route annotated with a Starlette response), the route refuses an empty question or a
conversation not ending with one and answers 503 while no agent provides `ask`; in a mesh, the model reads
the earlier turns the page sends; `scripts/run.sh` prints the page's address."""

from __future__ import annotations

import contextlib
import queue
import re
import socket
import subprocess
import threading
import time

from mesh_framework import MeshApplication
from mesh_framework.testing import mesh_client
from tests.agents import loopback

from ..agents import ROOT, agent_env, run_starter_with_model, stop
from ..llm_fakes import fake_openai, text


async def test_the_page_and_its_route_without_a_mesh() -> None:
    app = MeshApplication.load("starter_app", environ={})
    async with mesh_client(app) as client:
        served = await client.http.get("/chat")
        assert served.headers["content-type"] == "text/html; charset=utf-8"
        assert "<script>" in served.text and "http" not in served.text.split("<script>")[1]  # nothing fetched
        unavailable = await client.http.post(
            "/api/chat", json={"messages": [{"role": "user", "content": "hi"}]}
        )
        assert unavailable.status_code == 503
        assert unavailable.json() == {"error": "dependency_unavailable", "capability": "ask"}
        empty = await client.http.post("/api/chat", json={"messages": [{"role": "user", "content": ""}]})
        assert empty.status_code == 422
        assert empty.json()["detail"][0]["loc"] == ["body", "messages", 0, "content"]
        answered = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
        no_question = await client.http.post("/api/chat", json={"messages": answered})
        assert no_question.status_code == 422
        assert "the last message is the user's question" in no_question.json()["detail"][0]["msg"]
        system = await client.http.post("/api/chat", json={"messages": [{"role": "system", "content": "x"}]})
        assert system.status_code == 422  # the system prompt is the agent's, not the page's


def test_the_model_reads_the_earlier_turns_of_the_conversation() -> None:
    """A real registry and `mesh run starter_app` (the route reaches `ask`, its own tool, through the mesh),
    the fake OpenAI server as the model: the conversation the page posts reaches the model as messages,
    in order, after the system prompt."""
    with (
        fake_openai([text("5."), text("9.")]) as model,
        run_starter_with_model(model.base_url) as (_registry, starter),
    ):
        first = [{"role": "user", "content": "What is 2 + 3?"}]
        answer = loopback.post(starter.base_url + "/api/chat", json={"messages": first}, timeout=30)
        assert answer.status_code == 200 and "data: 5.\n" in answer.text and "[DONE]" in answer.text
        conversation = [
            *first,
            {"role": "assistant", "content": "5."},
            {"role": "user", "content": "Plus 4?"},
        ]
        follow_up = loopback.post(starter.base_url + "/api/chat", json={"messages": conversation}, timeout=30)
        assert follow_up.status_code == 200 and "data: 9.\n" in follow_up.text
    system, *turns = model.requests[1]["messages"]
    assert system["role"] == "system" and "starter agent's assistant" in system["content"]
    assert turns == conversation
    assert model.requests[0]["messages"][1:] == first


def test_run_script_prints_the_chat_page_address() -> None:
    """`scripts/run.sh` (the README's command) ends its demo with the page's address, read from the
    registry, and the page is served there."""
    with socket.socket() as probe:  # the embedded registry's port, which `mesh call` reads from settings too
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = agent_env({"MESH_REGISTRY__EMBEDDED_PORT": str(port)})
    process = subprocess.Popen(
        ["bash", str(ROOT / "scripts" / "run.sh"), "--profile", "dev"],  # dev: the agents on free ports
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    lines: queue.Queue[str | None] = queue.Queue()

    def drain() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=drain, daemon=True).start()
    try:
        said: list[str] = []
        deadline = time.monotonic() + 60
        found = None
        with contextlib.suppress(queue.Empty):  # the script runs on after its demo: give up at the deadline
            while (line := lines.get(timeout=max(0.1, deadline - time.monotonic()))) is not None:
                said.append(line)
                if found := re.search(r"^chat page .*: (http://127\.0\.0\.1:(\d+)/chat)$", line.strip()):
                    break
        assert found is not None, "run.sh printed no chat page address:\n" + "".join(said)
        assert found.group(2) != "8080"  # the port the registry lists, not a guess
        page = loopback.get(found.group(1), timeout=10)
        assert page.status_code == 200 and "Starter chat" in page.text
    finally:
        stop(process, timeout=20)
