"""The registry's push side: store events, `/topology/stream`, `/ui/stream`, bounded buffers.

The registry runs in process on a real loopback socket (`RegistryServer`); clients are real HTTP clients
(and a raw socket that never reads).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import AsyncIterator
from typing import Any

import httpx2

from mesh_framework.registry import RegistryServer, RegistryStore
from mesh_framework.registry.events import StoreEvent
from mesh_framework.registry.push import TopologyPush

STEP = 5.0  # bound on every wait below (never reached when things work)


def provider(agent_id: str, port: int, description: str = "") -> dict[str, Any]:
    return {
        "agent_id": agent_id,
        "name": agent_id.rsplit("-", 1)[0],
        "http_host": "127.0.0.1",
        "http_port": port,
        "tools": [
            {
                "function_name": "add",
                "capability": "add",
                "description": description,
                "inputSchema": {"type": "object", "properties": {}},
            }
        ],
    }


def consumer(agent_id: str = "calc-00000001") -> dict[str, Any]:
    """Depends on `add`, and its LLM tool lists every `add` (descriptions included: big answers)."""
    calc = {"function_name": "calc", "capability": "calc", "dependencies": [{"capability": "add"}]}
    ask = {"function_name": "ask", "capability": "ask", "llm_filter": {"filter": [{"capability": "add"}]}}
    return {
        "agent_id": agent_id,
        "name": "calc",
        "http_host": "127.0.0.1",
        "http_port": 9100,
        "tools": [calc, ask],
    }


def test_the_store_tells_who_is_affected() -> None:
    store = RegistryStore(timeout=20)
    seen: list[StoreEvent] = []
    store.events.subscribe(seen.append)
    store.heartbeat(consumer())
    store.heartbeat(provider("adder-00000001", 9001))
    kinds = [(e.kind, e.agent_id, set(e.consumers)) for e in seen]
    assert ("registered", "adder-00000001", set()) in kinds
    assert ("providers", None, {"calc-00000001"}) in kinds
    seen.clear()
    store.delete("adder-00000001")
    assert [e.kind for e in seen] == ["providers", "unhealthy"]
    assert seen[0].consumers == {"calc-00000001"}


def test_an_answer_marked_sent_makes_head_say_unchanged() -> None:
    store = RegistryStore(timeout=20)
    store.heartbeat(consumer())
    store.heartbeat(provider("adder-00000001", 9001))
    assert store.head("calc-00000001") == 202  # its answer changed since its POST
    answer = store.current_answer("calc-00000001")
    assert answer is not None and answer["dependencies_resolved"]["calc"][0]["agent_id"] == "adder-00000001"
    store.mark_sent("calc-00000001", answer)
    assert store.head("calc-00000001") == 200
    assert store.current_answer("nobody-00000001") is None


@contextlib.asynccontextmanager
async def registry() -> AsyncIterator[RegistryServer]:
    async with RegistryServer("127.0.0.1", 0, timeout=60) as server:
        yield server


async def events(response: httpx2.Response) -> AsyncIterator[tuple[str, Any]]:
    event = ""
    async for line in response.aiter_lines():
        if line.startswith("event:"):
            event = line[6:].strip()
        elif line.startswith("data:"):
            yield event, json.loads(line[5:])


async def next_event(stream: AsyncIterator[tuple[str, Any]]) -> tuple[str, Any]:
    return await asyncio.wait_for(anext(stream), STEP)


async def test_a_subscribed_consumer_gets_each_new_answer() -> None:
    async with registry() as server, httpx2.AsyncClient(base_url=server.url) as http:
        (await http.post("/heartbeat", json=consumer())).raise_for_status()
        async with http.stream("GET", "/topology/stream", params={"agent_id": "calc-00000001"}) as response:
            assert response.headers["content-type"].startswith("text/event-stream")
            stream = events(response)
            kind, first = await next_event(stream)
            assert kind == "answer" and first["dependencies_resolved"]["calc"][0]["status"] == "unresolved"
            (await http.post("/heartbeat", json=provider("adder-00000001", 9001))).raise_for_status()
            kind, answer = await next_event(stream)
            assert kind == "answer"
            assert answer["agent_id"] == "calc-00000001"
            assert answer["dependencies_resolved"]["calc"][0]["agent_id"] == "adder-00000001"
            assert (await http.head("/heartbeat/calc-00000001")).status_code == 200  # delivered
            (await http.delete("/agents/adder-00000001")).raise_for_status()
            kind, answer = await next_event(stream)
            assert answer["dependencies_resolved"]["calc"][0]["status"] == "unresolved"


async def test_an_unknown_agent_is_told_to_register() -> None:
    async with registry() as server, httpx2.AsyncClient(base_url=server.url) as http:
        async with http.stream("GET", "/topology/stream", params={"agent_id": "ghost-00000001"}) as response:
            assert await next_event(events(response)) == ("unknown", {"agent_id": "ghost-00000001"})
        missing = await http.get("/topology/stream")
        assert missing.status_code == 400
        assert "needs ?agent_id=ID" in missing.json()["message"]


async def test_a_subscriber_that_never_reads_holds_one_message_and_blocks_nobody() -> None:
    async with registry() as server, httpx2.AsyncClient(base_url=server.url) as http:
        (await http.post("/heartbeat", json=consumer())).raise_for_status()
        push: TopologyPush = server.app.state.push
        # a client that subscribes and then never reads a byte
        port = int(server.url.rsplit(":", 1)[1])
        stuck = socket.create_connection(("127.0.0.1", port))
        stuck.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        stuck.sendall(b"GET /topology/stream?agent_id=calc-00000001 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        try:
            async with asyncio.timeout(STEP):
                while not push.agents.get("calc-00000001"):
                    await asyncio.sleep(0.01)
            # large answers, many times: far more than the socket buffers can hold
            big = "x" * 20_000
            for round_ in range(300):
                payload = provider(f"adder-{round_:08x}", 9000 + round_ % 500, big)
                (await http.post("/heartbeat", json=payload)).raise_for_status()
                (await http.delete(f"/agents/adder-{round_:08x}")).raise_for_status()
            await asyncio.sleep(0)  # let the coalesced flush run
            (subscriber,) = push.agents["calc-00000001"]
            assert subscriber.pending <= 1
            assert subscriber.dropped > 0  # replaced, not queued
            # the registry still serves, and a reading subscriber gets the newest answer at once
            assert (await http.get("/health")).status_code == 200
            (await http.post("/heartbeat", json=provider("adder-ffffffff", 9999))).raise_for_status()
            async with http.stream("GET", "/topology/stream", params={"agent_id": "calc-00000001"}) as live:
                _kind, answer = await next_event(events(live))
                assert answer["dependencies_resolved"]["calc"][0]["agent_id"] == "adder-ffffffff"
        finally:
            stuck.close()


async def test_the_page_stream_says_when_anything_changed() -> None:
    async with registry() as server, httpx2.AsyncClient(base_url=server.url) as http:
        async with http.stream("GET", "/ui/stream") as response:
            stream = events(response)
            kind, first = await next_event(stream)
            assert kind == "changed"
            (await http.post("/heartbeat", json=provider("adder-00000001", 9001))).raise_for_status()
            kind, later = await next_event(stream)
            assert kind == "changed" and later["revision"] > first["revision"]
        state = (await http.get("/ui/state")).json()
        assert [a["name"] for a in state["agents"]] == ["adder"]
        assert state["agents"][0]["capabilities"][0]["name"] == "add"


async def test_a_provider_reporting_itself_down_is_pushed_away_and_back() -> None:
    async with registry() as server, httpx2.AsyncClient(base_url=server.url) as http:
        (await http.post("/heartbeat", json=consumer())).raise_for_status()
        (await http.post("/heartbeat", json=provider("adder-00000001", 9001))).raise_for_status()
        async with http.stream("GET", "/topology/stream", params={"agent_id": "calc-00000001"}) as response:
            stream = events(response)
            _kind, answer = await next_event(stream)
            assert answer["dependencies_resolved"]["calc"][0]["agent_id"] == "adder-00000001"
            down = {**provider("adder-00000001", 9001), "status": "unhealthy"}  # its health said DOWN
            (await http.post("/heartbeat", json=down)).raise_for_status()
            _kind, answer = await next_event(stream)
            assert answer["dependencies_resolved"]["calc"][0]["status"] == "unresolved"
            (await http.post("/heartbeat", json=provider("adder-00000001", 9001))).raise_for_status()
            _kind, answer = await next_event(stream)
            assert answer["dependencies_resolved"]["calc"][0]["agent_id"] == "adder-00000001"
