"""The console's routes on the registry.

- `POST /console/push`: an agent's counters and spans (console/push.py); 204, 400 naming the bad field.
- `GET /ui/console?since=SEQ`: traffic, tokens and the traces changed after `SEQ` (board.py).
- `GET /ui/tools`: every agent's tools with their input schemas, whether they stream, whether the
  framework adds them (`__mesh_job_*`, `get_server_status`) and the model of a direct-mode LLM tool.
- `GET /ui/events?limit=`: registrations, deregistrations, health changes and resolutions, newest first,
  each resolution with its one-line reason.
- `POST /ui/call {agent_id, tool, arguments}`: calls the tool at its agent and answers NDJSON lines as
  they come: `{"chunk": text}` for each streamed chunk, then `{"result": CallToolResult}` or
  `{"error": message}`. Only from loopback, or with the registry token (which every route then needs).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx2
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from ...config.network import is_loopback
from ...resolution_audit import summarize
from ..events import StoreEvent
from ..store import RegistryStore
from ..views import timestamp
from .board import ConsoleBoard, PushError

__all__ = ["FRAMEWORK_TOOLS", "MAX_PUSH_BYTES", "call_lines", "console_routes", "is_framework_tool"]

logger = logging.getLogger("mesh_framework.registry")

MAX_PUSH_BYTES = 8 * 1024 * 1024
MAX_CALL_BYTES = 1024 * 1024
CALL_TIMEOUT = 120.0
FRAMEWORK_TOOLS = frozenset({"get_server_status"})
_JOB_PREFIX = "__mesh_job_"


def is_framework_tool(name: str) -> bool:
    """A tool the framework adds to every agent (the job tools, the status tool)."""
    return name.startswith(_JOB_PREFIX) or name in FRAMEWORK_TOOLS


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


async def call_lines(endpoint: str, tool: str, arguments: dict[str, Any]) -> AsyncIterator[bytes]:
    """Call `tool` at `endpoint` (a stateless MCP POST) and yield NDJSON lines as the answer comes."""

    def line(data: dict[str, Any]) -> bytes:
        return json.dumps(data, separators=(",", ":"), default=str).encode() + b"\n"

    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments, "_meta": {"progressToken": "console"}},
    }
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    try:
        async with (
            httpx2.AsyncClient(trust_env=False, timeout=CALL_TIMEOUT) as http,
            http.stream("POST", endpoint, json=request, headers=headers) as response,
        ):
            kind = response.headers.get("content-type", "")
            if "text/event-stream" not in kind:
                text = (await response.aread()).decode("utf-8", "replace")
                try:
                    messages = [json.loads(text)]
                except ValueError:
                    yield line({"error": f"the agent answered HTTP {response.status_code}: {text[:300]}"})
                    return
            else:
                messages = None
            if messages is None:
                async for raw in response.aiter_lines():
                    if not raw.startswith("data:"):
                        continue
                    try:
                        message = json.loads(raw[5:].strip())
                    except ValueError:
                        continue
                    out = _message_line(message)
                    if out is not None:
                        yield line(out)
                return
            for message in messages:
                out = _message_line(message)
                yield line(out or {"error": f"the agent answered HTTP {response.status_code}"})
    except httpx2.HTTPError as exc:
        yield line({"error": f"agent unreachable at {endpoint}: {type(exc).__name__}: {exc}"})


def _message_line(message: Any) -> dict[str, Any] | None:
    if not isinstance(message, dict):
        return None
    if message.get("method") == "notifications/progress":
        params = message.get("params") or {}
        if isinstance(params.get("message"), str):
            return {"chunk": params["message"]}
        return {"progress": params.get("progress"), "total": params.get("total")}
    if "result" in message:
        return {"result": message["result"]}
    if "error" in message:
        error = message["error"] if isinstance(message["error"], dict) else {}
        return {"error": f"{error.get('message', 'error')} (JSON-RPC {error.get('code', '?')})"}
    return None


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
            body = json.loads(await request.body())
        except ValueError as exc:
            return _refused(400, f"the console push is not valid JSON ({exc})")
        try:
            board.ingest(body, directory.provider)
        except PushError as exc:
            return _refused(400, f"invalid console push: {exc}", exc.field)
        return Response(status_code=204)

    async def console(request: Request) -> Response:
        text = request.query_params.get("since", "0")
        if not text.isdigit():
            return _refused(400, f"since must be a non-negative integer, not {text!r}", "since")
        body = {"timestamp": timestamp(), **board.view(int(text), directory.name)}
        return JSONResponse(body, headers={"Cache-Control": "no-store"})

    async def tools(request: Request) -> Response:
        return JSONResponse({"tools": _tools_view(store)}, headers={"Cache-Control": "no-store"})

    async def events(request: Request) -> Response:
        text = request.query_params.get("limit", "100")
        limit = int(text) if text.isdigit() else 100
        return JSONResponse({"events": _events_view(store, limit)}, headers={"Cache-Control": "no-store"})

    async def call(request: Request) -> Response:
        client = request.client.host if request.client else None
        if not token_required and not is_loopback(client):
            return _refused(
                403, "tools are called from the console only on loopback or with the registry token"
            )
        raw = await request.body()
        if len(raw) > MAX_CALL_BYTES:
            return _refused(413, f"a call from the console is limited to {MAX_CALL_BYTES} bytes")
        try:
            body = json.loads(raw)
        except ValueError as exc:
            return _refused(400, f"the call is not valid JSON ({exc})")
        if not isinstance(body, dict):
            return _refused(400, "the call must be a JSON object {agent_id, tool, arguments}")
        agent_id, tool, arguments = body.get("agent_id"), body.get("tool"), body.get("arguments", {})
        if not isinstance(tool, str) or not tool:
            return _refused(400, "tool must be the name of a tool", "tool")
        if not isinstance(arguments, dict):
            return _refused(
                400, f"arguments must be a JSON object, not {type(arguments).__name__}", "arguments"
            )
        state = store.get(agent_id) if isinstance(agent_id, str) else None
        if state is None:
            return _refused(404, f"no agent {agent_id!r} is registered", "agent_id")
        if not state.healthy:
            return _refused(409, f"agent {agent_id!r} is not healthy", "agent_id")
        endpoint = state.registration.endpoint.rstrip("/") + "/mcp"
        return StreamingResponse(
            call_lines(endpoint, tool, arguments),
            media_type="application/x-ndjson",
            headers={"Cache-Control": "no-store"},
        )

    return [
        Route("/console/push", push, methods=["POST"]),
        Route("/ui/console", console, methods=["GET"]),
        Route("/ui/tools", tools, methods=["GET"]),
        Route("/ui/events", events, methods=["GET"]),
        Route("/ui/call", call, methods=["POST"]),
    ]
