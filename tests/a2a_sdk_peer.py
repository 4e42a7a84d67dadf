"""An A2A agent built with the official `a2a-sdk` alone (its request handler, task store, routes), for
tests of our `A2aClient`: `python -m tests.a2a_sdk_peer` prints `serving http://127.0.0.1:PORT`.

Its one skill echoes the text (`sdk-echo:<text>`) as a task; a text starting `slow` sends one artifact
chunk and then nothing for a minute (a peer that stalls mid-stream)."""

from __future__ import annotations

import asyncio
import socket
import sys

import uvicorn
from a2a.helpers import new_task_from_user_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill, Part
from starlette.applications import Starlette


class Echo(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        assert context.message is not None
        await event_queue.enqueue_event(new_task_from_user_message(context.message))
        updater = TaskUpdater(event_queue, context.task_id or "", context.context_id or "")
        await updater.start_work()
        text = context.get_user_input()
        if text.startswith("slow"):
            await updater.add_artifact([Part(text="first")], artifact_id="a", name="result")
            await asyncio.sleep(60)
        await updater.add_artifact([Part(text=f"sdk-echo:{text}")], artifact_id="a", name="result")
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        await TaskUpdater(event_queue, context.task_id or "", context.context_id or "").cancel()


def main() -> None:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    card = AgentCard(
        name="sdk-peer",
        description="An a2a-sdk agent",
        version="1.0.0",
        supported_interfaces=[
            AgentInterface(
                url=f"http://127.0.0.1:{port}/rpc", protocol_binding="JSONRPC", protocol_version="1.0"
            )
        ],
        capabilities=AgentCapabilities(streaming=True),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[AgentSkill(id="sdk-echo", name="Echo", description="Echo", tags=["echo"])],
    )
    handler = DefaultRequestHandler(Echo(), InMemoryTaskStore(), card)
    app = Starlette(routes=[*create_agent_card_routes(card), *create_jsonrpc_routes(handler, "/rpc")])
    print(f"serving http://127.0.0.1:{port}", flush=True)
    config = uvicorn.Config(app, log_level="warning")
    asyncio.run(uvicorn.Server(config).serve(sockets=[sock]))


if __name__ == "__main__":
    sys.exit(main())
