"""The console's routes on the registry.

- `POST /console/push`: an agent's counters and spans (console/push.py); 204, 400 naming the bad field.
- `GET /ui/console?since=SEQ`: traffic, tokens and the traces changed after `SEQ` (board.py).
- `GET /ui/tools`: every agent's tools with their input schemas, whether they stream, whether the
  framework adds them (`__mesh_job_*`, `get_server_status`) and the model of a direct-mode LLM tool.
- `GET /ui/events?limit=`: registrations, deregistrations, health changes and resolutions, newest first,
  each resolution with its one-line reason.
- `POST /ui/call {agent_id, tool, arguments, framework}`: calls a tool the agent registered, through the
  mesh's MCP client (calls.py), and answers NDJSON lines as they come: `{"chunk": text}` for each
  streamed chunk, then `{"result": CallToolResult}` or `{"error": message}`. Only from loopback, or with
  the registry token (which every route then needs), and always with the page's CSRF token
  (registry/ui/protection.py).

Every body is read as strict JSON (registry/inputs.py): what is kept can always be shown again.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from ...config.network import is_loopback
from ...resolution_audit import summarize
from ..events import StoreEvent
from ..inputs import BodyError, parse_json, query_int, read_json
from ..store import RegistryStore
from ..ui.protection import valid_csrf
from ..views import timestamp
from .board import ConsoleBoard, PushError
from .calls import FRAMEWORK_TOOLS, CallRefused, call_lines, check_call, is_framework_tool, read_call

__all__ = ["FRAMEWORK_TOOLS", "MAX_PUSH_BYTES", "console_routes", "is_framework_tool", "refuse_call"]

logger = logging.getLogger("mesh_framework.registry")

MAX_PUSH_BYTES = 8 * 1024 * 1024
MAX_CALL_BYTES = 1024 * 1024
CSRF_REFUSED = (
    "a tool is called from the mesh page only, with the page's token (X-Mesh-Csrf): reload the page "
    "(a page served before the registry or console restarted has an old one)"
)


def refuse_call(request: Request) -> JSONResponse | None:
    """403 for a `POST /ui/call` without the page's CSRF token (registry/ui/protection.py), else None."""
    if valid_csrf(request):
        return None
    return _refused(403, CSRF_REFUSED, "X-Mesh-Csrf")


def _refused(status: int, message: str, field: str = "") -> JSONResponse:
    return JSONResponse({"status": "error", "message": message, "field": field}, status_code=status)


class _Directory:
    """Agent names and the agent at each endpoint, rebuilt at most once a second."""

    def __init__(self, store: RegistryStore) -> None:
        self.store = store
        self._endpoints: dict[str, str] = {}
        self._names: dict[str, str] = {}
        self._built = 0.0

    def _refresh(self) -> None:
        now = time.monotonic()
        if now - self._built < 1.0:
            return
        self._built = now
        endpoints: dict[str, str] = {}
        names: dict[str, str] = {}
        for state in self.store.agents():
            registration = state.registration
            names[registration.agent_id] = registration.name
            if state.healthy or registration.endpoint not in endpoints:
                endpoints[registration.endpoint.rstrip("/")] = registration.agent_id
        self._endpoints, self._names = endpoints, names

    def provider(self, endpoint: str) -> str:
        self._refresh()
        return self._endpoints.get(endpoint.rstrip("/"), "")

    def name(self, agent_id: str) -> str:
        self._refresh()
        return self._names.get(agent_id, agent_id)


def _tools_view(store: RegistryStore) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for state in store.agents():
        registration = state.registration
        raw_tools = registration.raw.get("tools") if isinstance(registration.raw, dict) else None
        raw_by_name = (
            {t.get("function_name"): t for t in raw_tools if isinstance(t, dict)}
            if isinstance(raw_tools, list)
            else {}
        )
        for tool in registration.tools:
            if not tool.capability and ":" in tool.function_name:  # a web route's pseudo-tool
                continue
            raw = raw_by_name.get(tool.function_name) or {}
            kwargs = tool.kwargs if isinstance(tool.kwargs, dict) else {}
            rows.append(
                {
                    "agent_id": registration.agent_id,
                    "agent": registration.name,
                    "healthy": state.healthy,
                    "tool": tool.function_name,
                    "capability": tool.capability,
                    "description": tool.description,
                    "input_schema": tool.input_schema,
                    "streams": kwargs.get("stream_type") == "text",
                    "framework": is_framework_tool(tool.function_name),
                    "llm_model": raw.get("llm_model") if isinstance(raw.get("llm_model"), str) else None,
                }
            )
    return rows


def _events_view(store: RegistryStore, limit: int) -> list[dict[str, Any]]:
    events = []
    for event in store.audit.query(limit=limit):
        row = {
            k: event.get(k) for k in ("event_type", "agent_id", "agent_name", "function_name", "timestamp")
        }
        if str(event.get("event_type", "")).startswith("dependency_"):
            row["reason"] = summarize(event.get("data"))
        events.append(row)
    return events


def console_routes(store: RegistryStore, board: ConsoleBoard, *, token_required: bool) -> list[Route]:
    """The routes above over `store` and `board`; `token_required`: the registry checks its token in
    front of every route (then a call may come from anywhere that has it)."""
    directory = _Directory(store)

    def on_event(event: StoreEvent) -> None:
        if event.kind == "purged" and event.agent_id:
            board.forget([event.agent_id])

    store.events.subscribe(on_event)

    async def push(request: Request) -> Response:
        length = request.headers.get("content-length")
        if length is not None and length.isdigit() and int(length) > MAX_PUSH_BYTES:
            return _refused(413, f"a console push is limited to {MAX_PUSH_BYTES} bytes")
        try:
            board.ingest(await read_json(request, what="the console push"), directory.provider)
        except (BodyError, PushError) as exc:
            return _refused(400, f"invalid console push: {exc}", exc.field)
        return Response(status_code=204)

    async def console(request: Request) -> Response:
        try:
            since = query_int(request, "since", 0, high=2**62)
        except BodyError as exc:
            return _refused(400, str(exc), exc.field)
        body = {"timestamp": timestamp(), **board.view(since, directory.name)}
        return JSONResponse(body, headers={"Cache-Control": "no-store"})

    async def tools(request: Request) -> Response:
        return JSONResponse({"tools": _tools_view(store)}, headers={"Cache-Control": "no-store"})

    async def events(request: Request) -> Response:
        try:
            limit = query_int(request, "limit", 100, high=500)
        except BodyError as exc:
            return _refused(400, str(exc), exc.field)
        return JSONResponse({"events": _events_view(store, limit)}, headers={"Cache-Control": "no-store"})

    async def call(request: Request) -> Response:
        client = request.client.host if request.client else None
        if not token_required and not is_loopback(client):
            return _refused(
                403, "tools are called from the console only on loopback or with the registry token"
            )
        refused = refuse_call(request)
        if refused is not None:
            return refused
        raw = await request.body()
        if len(raw) > MAX_CALL_BYTES:
            return _refused(413, f"a call from the console is limited to {MAX_CALL_BYTES} bytes")
        try:
            wanted = read_call(parse_json(raw, what="the call"))
            state = store.get(wanted.agent_id)
            if state is None:
                raise CallRefused(404, f"no agent {wanted.agent_id!r} is registered", "agent_id")
            registration = state.registration
            served = (t.function_name for t in registration.tools if t.capability)  # not route pseudo-tools
            url = check_call(wanted, healthy=state.healthy, endpoint=registration.endpoint, tools=served)
        except BodyError as exc:
            return _refused(400, str(exc), exc.field)
        except CallRefused as exc:
            return _refused(exc.status, exc.message, exc.field)
        return StreamingResponse(
            call_lines(url, wanted), media_type="application/x-ndjson", headers={"Cache-Control": "no-store"}
        )

    return [
        Route("/console/push", push, methods=["POST"]),
        Route("/ui/console", console, methods=["GET"]),
        Route("/ui/tools", tools, methods=["GET"]),
        Route("/ui/events", events, methods=["GET"]),
        Route("/ui/call", call, methods=["POST"]),
    ]
