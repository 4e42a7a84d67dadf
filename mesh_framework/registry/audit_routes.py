"""`GET /events` (MCP Mesh's audit endpoint), `GET /explain` (ours: one slot's trace computed now) and
MCP Mesh's `GET /schemas` and `GET /schemas/{hash}` (registry/schema_catalog.py).

- `/events?agent_id=&type=&function_name=&limit=`: `{"count": N, "events": [...]}`, newest first; `limit`
  is clamped to 1..500 (default 50), a non-integer one is a 400.
- `/explain?agent_id=&function_name=&dep_index=`: `{"agent_id", "function_name", "dep_index", "trace",
  "summary"}`; 404 naming what is unknown (the agent, or the tool's slot).
- `/schemas?limit=`: `{"count": N, "schemas": [{canonical, created_at, hash, runtime_origin}, ...]}`, newest
  first; `limit` is clamped to 1..1000 (default 100), a non-integer one is a 400.
- `/schemas/{hash}`: one entry; 404 for an unknown hash with MCP Mesh's `error` and `timestamp` and our
  `status`, `message` and `field`.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..resolution_audit import summarize
from . import schema_catalog
from .audit import DEFAULT_LIMIT, MAX_LIMIT, timestamp
from .store import RegistryStore

__all__ = ["audit_routes"]


def _refused(status: int, message: str, field: str) -> JSONResponse:
    return JSONResponse({"status": "error", "message": message, "field": field}, status_code=status)


def audit_routes(store: RegistryStore) -> list[Route]:
    async def events(request: Request) -> Response:
        query = request.query_params
        text = query.get("limit")
        limit = DEFAULT_LIMIT
        if text:
            try:
                limit = int(text)
            except ValueError:
                return _refused(400, f"limit must be an integer from 1 to {MAX_LIMIT}, not {text!r}", "limit")
        found = store.audit.query(
            agent_id=query.get("agent_id") or None,
            event_type=query.get("type") or None,
            function_name=query.get("function_name") or None,
            limit=limit,
        )
        return JSONResponse({"count": len(found), "events": found})

    async def explain(request: Request) -> Response:
        query = request.query_params
        agent_id, function_name = query.get("agent_id", ""), query.get("function_name", "")
        text = query.get("dep_index", "0")
        if not (text.isascii() and text.isdigit()):
            return _refused(400, f"dep_index must be a non-negative integer, not {text!r}", "dep_index")
        state = store.get(agent_id)
        if state is None:
            return _refused(404, f"no agent {agent_id!r} is registered", "agent_id")
        data = store.explain(agent_id, function_name, int(text))
        if data is None:
            tools = ", ".join(t.function_name for t in state.registration.tools if t.dependencies) or "none"
            return _refused(
                404,
                f"agent {agent_id!r} has no dependency {text} of a tool {function_name!r} "
                f"(tools with dependencies: {tools})",
                "function_name",
            )
        body = {
            "agent_id": agent_id,
            "function_name": function_name,
            "dep_index": int(text),
            "trace": data,
            "summary": summarize(data),
        }
        return JSONResponse(body, headers={"Cache-Control": "no-store"})

    async def schemas(request: Request) -> Response:
        text = request.query_params.get("limit")
        limit = schema_catalog.DEFAULT_LIMIT
        if text:
            try:
                limit = int(text)
            except ValueError:
                top = schema_catalog.MAX_LIMIT
                return _refused(400, f"limit must be an integer from 1 to {top}, not {text!r}", "limit")
        found = store.schemas.newest(limit)
        return JSONResponse({"count": len(found), "schemas": found})

    async def schema(request: Request) -> Response:
        digest = request.path_params["digest"]
        entry = store.schemas.get(digest)
        if entry is None:
            body = {
                "status": "error",
                "message": f"no schema {digest!r} was published here (GET /schemas lists them)",
                "field": "hash",
                "error": f"schema not found: {digest}",  # MCP Mesh's registry answers this and a timestamp
                "timestamp": timestamp(),
            }
            return JSONResponse(body, status_code=404)
        return JSONResponse(entry)

    return [
        Route("/events", events, methods=["GET"]),
        Route("/explain", explain, methods=["GET"]),
        Route("/schemas", schemas, methods=["GET"]),
        Route("/schemas/{digest}", schema, methods=["GET"]),
    ]
