"""`remote_console_app`: the mesh page served apart from the registry (`mesh console --registry-url`),
over any MCP Mesh registry: ours or MCP Mesh's.

What every registry serves is read from it: `/ui/state` and `/ui/tools` are built from `GET /agents`
(without input schemas, a remote listing's tools are called with raw JSON arguments), `/ui/events` from
`GET /events`, `/explain` is passed on. Traffic, tokens and traces come from the registry's
`/ui/console` where it has one (ours); a registry without it (MCP Mesh's) gets an empty console with a
note. Tool calls (`/ui/call`) are made by this process, which runs on the user's machine, under the same
rules as the registry's (the page's CSRF token, a tool the listing shows for a healthy agent:
registry/console/calls.py); the page has the registry's protections (protection.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from ...edge import EdgePolicy, GuardedEdge
from ...resolution_audit import summarize
from ...sse import KEEP_ALIVE, MEDIA_TYPE, encode
from ..console.board import BUCKET_SECONDS, WINDOW_SECONDS
from ..console.calls import CallRefused, call_lines, check_call, is_framework_tool, read_call
from ..console.routes import refuse_call
from ..inputs import BodyError, read_json
from . import page_html
from .protection import favicon_route, page_response
from .state import state_from_views

__all__ = ["POLL_SECONDS", "remote_console_app"]

POLL_SECONDS = 2.0  # how often the page's change stream re-reads the registry's listing
TIMEOUT = 5.0


def _empty_console(note: str) -> dict[str, Any]:
    trend = [0] * (WINDOW_SECONDS // BUCKET_SECONDS)
    totals = {"calls": 0, "errors": 0, "error_rate": 0.0, "avg_ms": 0.0, "p99_ms": 0.0, "trend": trend}
    return {
        "window_seconds": WINDOW_SECONDS,
        "bucket_seconds": BUCKET_SECONDS,
        "totals": totals,
        "tools": [],
        "edges": [],
        "tokens": [],
        "traces": [],
        "seq": 0,
        "retained_traces": 0,
        "max_traces": 0,
        "evicted_traces": 0,
        "dropped_keys": 0,
        "unavailable": note,
    }


def _json_object(response: httpx2.Response) -> dict[str, Any]:
    """The registry's answer as a JSON object ({} when it is not one)."""
    try:
        body = response.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def _refused(status: int, message: str, field: str = "") -> JSONResponse:
    return JSONResponse({"status": "error", "message": message, "field": field}, status_code=status)


class _Remote:
    """The routes' handlers over one registry."""

    def __init__(self, url: str, token: str | None) -> None:
        self.base = url.rstrip("/")
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.http = httpx2.AsyncClient(trust_env=False, timeout=TIMEOUT, headers=headers)
        self.html = page_html()
        self.stopping = asyncio.Event()
        self.loop: asyncio.AbstractEventLoop | None = None

    def end_streams(self) -> None:
        """End the pages' change streams (the server is stopping: it waits for open responses); safe from
        a signal handler or another thread."""
        if self.loop is not None:
            self.loop.call_soon_threadsafe(self.stopping.set)

    async def get(self, path: str) -> httpx2.Response | None:
        try:
            return await self.http.get(self.base + path)
        except httpx2.HTTPError:
            return None

    async def listing(self) -> list[dict[str, Any]] | None:
        response = await self.get("/agents")
        if response is None or response.status_code != 200:
            return None
        agents = _json_object(response).get("agents") or []  # MCP Mesh says null when empty
        if not isinstance(agents, list):
            return None
        return [a for a in agents if isinstance(a, dict) and "id" in a]

    def unreachable(self) -> JSONResponse:
        return JSONResponse(
            {"status": "error", "message": f"the registry at {self.base} is unreachable"}, 502
        )

    async def page(self, request: Request) -> Response:
        return page_response(self.html)

    async def state(self, request: Request) -> Response:
        agents = await self.listing()
        if agents is None:
            return self.unreachable()
        return JSONResponse(
            state_from_views((a, None) for a in agents), headers={"Cache-Control": "no-store"}
        )

    async def tools(self, request: Request) -> Response:
        ours = await self.get("/ui/tools")  # our registry lists input schemas too
        if ours is not None and ours.status_code == 200:
            return Response(
                ours.content, media_type="application/json", headers={"Cache-Control": "no-store"}
            )
        agents = await self.listing()
        if agents is None:
            return self.unreachable()
        rows = []
        for agent in agents:
            for capability in agent.get("capabilities") or []:
                name = str(capability.get("function_name", ""))
                if not name or ":" in name:
                    continue
                rows.append(
                    {
                        "agent_id": agent["id"],
                        "agent": agent.get("name", agent["id"]),
                        "healthy": agent.get("status", "healthy") == "healthy",
                        "tool": name,
                        "capability": capability.get("name", ""),
                        "description": capability.get("description", ""),
                        "input_schema": capability.get("input_schema"),  # None: unknown, raw JSON
                        "streams": False,
                        "framework": is_framework_tool(name),
                        "llm_model": None,
                        "endpoint": agent.get("endpoint", ""),
                    }
                )
        return JSONResponse({"tools": rows}, headers={"Cache-Control": "no-store"})

    async def console(self, request: Request) -> Response:
        since = request.query_params.get("since", "0")
        since = since if since.isascii() and since.isdigit() else "0"
        response = await self.get("/ui/console?since=" + since)
        if response is None:
            return self.unreachable()
        if response.status_code == 200:
            return Response(
                response.content, media_type="application/json", headers={"Cache-Control": "no-store"}
            )
        note = f"the registry at {self.base} gathers no traffic or traces (HTTP {response.status_code})"
        return JSONResponse(_empty_console(note), headers={"Cache-Control": "no-store"})

    async def events(self, request: Request) -> Response:
        limit = request.query_params.get("limit", "100")
        limit = limit if limit.isascii() and limit.isdigit() else "100"
        response = await self.get("/events?limit=" + limit)
        if response is None:
            return self.unreachable()
        body = _json_object(response) if response.status_code == 200 else {}
        rows = []
        events = body.get("events")
        for event in events if isinstance(events, list) else []:
            if not isinstance(event, dict):
                continue
            row = {
                k: event.get(k)
                for k in ("event_type", "agent_id", "agent_name", "function_name", "timestamp")
            }
            if str(event.get("event_type", "")).startswith("dependency_"):
                row["reason"] = summarize(event.get("data"))
            rows.append(row)
        return JSONResponse({"events": rows}, headers={"Cache-Control": "no-store"})

    async def explain(self, request: Request) -> Response:
        response = await self.get("/explain?" + request.url.query)
        if response is None:
            return self.unreachable()
        return Response(response.content, response.status_code, media_type="application/json")

    async def call(self, request: Request) -> Response:
        refused = refuse_call(request)
        if refused is not None:
            return refused
        try:
            wanted = read_call(await read_json(request, what="the call"))
        except BodyError as exc:
            return _refused(400, str(exc), exc.field)
        except CallRefused as exc:
            return _refused(exc.status, exc.message, exc.field)
        agents = await self.listing()
        if agents is None:
            return self.unreachable()
        agent = next((a for a in agents if a["id"] == wanted.agent_id), None)
        try:
            if agent is None:
                raise CallRefused(404, f"no agent {wanted.agent_id!r} is registered", "agent_id")
            capabilities = agent.get("capabilities")
            tools = [
                c.get("function_name")
                for c in (capabilities if isinstance(capabilities, list) else [])
                if isinstance(c, dict)
            ]
            url = check_call(
                wanted,
                healthy=agent.get("status", "healthy") == "healthy",
                endpoint=str(agent.get("endpoint", "")),
                tools=[t for t in tools if isinstance(t, str) and t],
            )
        except CallRefused as exc:
            return _refused(exc.status, exc.message, exc.field)
        return StreamingResponse(
            call_lines(url, wanted), media_type="application/x-ndjson", headers={"Cache-Control": "no-store"}
        )

    async def stream(self, request: Request) -> Response:
        async def changes() -> AsyncIterator[bytes]:
            last = None
            revision = 0
            while not self.stopping.is_set() and not await request.is_disconnected():
                agents = await self.listing()
                current = json.dumps(agents, sort_keys=True, default=str)
                if current != last:
                    last, revision = current, revision + 1
                    yield encode(json.dumps({"revision": revision}, separators=(",", ":")), event="changed")
                else:
                    yield KEEP_ALIVE
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.stopping.wait(), POLL_SECONDS)

        return StreamingResponse(changes(), media_type=MEDIA_TYPE, headers={"Cache-Control": "no-store"})


def remote_console_app(url: str, *, token: str | None = None, host: str = "127.0.0.1") -> Starlette:
    """The page and its routes over the registry at `url` (with its bearer `token`, if any), behind the
    guarded edge for a server bound to `host` (loopback: only this machine's hosts and pages). The server
    calls `app.state.end_streams()` when it stops, so an open page does not hold it."""
    remote = _Remote(url, token)
    routes = [
        Route("/ui", remote.page, methods=["GET"]),
        Route("/ui/state", remote.state, methods=["GET"]),
        Route("/ui/stream", remote.stream, methods=["GET"]),
        Route("/ui/console", remote.console, methods=["GET"]),
        Route("/ui/tools", remote.tools, methods=["GET"]),
        Route("/ui/events", remote.events, methods=["GET"]),
        Route("/ui/call", remote.call, methods=["POST"]),
        Route("/explain", remote.explain, methods=["GET"]),
        favicon_route(),
    ]

    @asynccontextmanager
    async def closing(app: Starlette) -> AsyncIterator[None]:
        remote.loop = asyncio.get_running_loop()
        yield
        await remote.http.aclose()

    edge = Middleware(GuardedEdge, policy=EdgePolicy.loopback(host, surface="console"))
    app = Starlette(routes=routes, middleware=[edge], lifespan=closing)
    app.state.end_streams = remote.end_streams
    return app
