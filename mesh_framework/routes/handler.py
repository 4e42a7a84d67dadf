"""`RouteHandler`: serves one `@mesh_route`. Its dependency slots live in a `MeshToolWrapper` (updated by
the mesh runtime like a tool's); the call reads path, query and body, validates them with the model the
tools' analyzer built, injects (with the tools' loop, tools/injected.py), calls, and answers JSON or
Server-Sent Events.

As a tool call is, the request is a server span continuing the caller's trace (`incoming_request`), and
while it is served, Server-Sent Events included, its allowlisted headers and its `X-Mesh-Timeout` budget
go with the calls it makes (`propagating`)."""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
import logging
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import ValidationError
from pydantic_core import to_json
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response

from .. import observation
from ..errors import CapabilityUnavailable
from ..failures import log_failure
from ..propagation import HeaderAllowlist, budget_deadline, propagating
from ..protocol.drain import Drain
from ..security.caller import current_access_token
from ..tools.injected import fill_injected
from ..tools.wrapper import MeshToolWrapper
from .planning import RoutePlan

__all__ = ["RouteHandler"]

logger = logging.getLogger("mesh_framework.routes")


class _BodyTooLarge(Exception):
    pass


def _unprocessable(kind: str, loc: list[Any], message: str, value: Any, **extra: Any) -> JSONResponse:
    problem = {"type": kind, "loc": loc, "msg": message, "input": value, **extra}
    return JSONResponse({"detail": [problem]}, status_code=422)


class RouteHandler:
    """One route's endpoint (an ASGI app for a Starlette `Route`)."""

    def __init__(
        self,
        plan: RoutePlan,
        wrapper: MeshToolWrapper,
        target: Callable[..., Any],
        beans: Mapping[str, Any],
        *,
        max_body_bytes: int,
        propagation: HeaderAllowlist | None = None,
        drain: Drain | None = None,
    ) -> None:
        self.plan = plan
        self.wrapper = wrapper
        self.target = target
        self.beans = dict(beans)
        self.max_body_bytes = max_body_bytes
        self.propagation = propagation or HeaderAllowlist()
        self.drain = drain  # the agent's: a stop waits for the route's streams, then ends them
        signature = plan.signature
        self._fields = frozenset(signature.arguments_model.model_fields)
        self._validate = signature.arguments_model.__pydantic_validator__.validate_python
        self._injected = signature.injected
        self._streams = signature.streams
        self._is_async = signature.is_async
        self._adapter = signature.output_adapter
        self._query = self._fields - set(plan.body) - plan.path_params

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        raw = scope["headers"]
        forwarded = self.propagation.capture(raw)
        deadline = budget_deadline(forwarded.get("x-mesh-timeout")) if forwarded else None
        with (
            propagating(forwarded, deadline),
            observation.tracer.incoming_request(scope["method"], self.plan.spec.path, raw) as span,
        ):
            response = await self.respond(Request(scope, receive, send))
            span.status(response.status_code)
            await response(scope, receive, send)  # a stream's generator runs here, inside both

    async def respond(self, request: Request) -> Response:
        """The answer to one request (its body not yet sent)."""
        plan = self.plan
        if plan.spec.scopes:
            refused = self._refused(request)
            if refused is not None:
                return refused
        arguments: dict[str, Any] = dict(request.path_params)
        query = request.query_params
        for key in self._query.intersection(query.keys()):
            arguments[key] = query.getlist(key) if key in plan.lists else query[key]
        if plan.body:
            problem = await self._read_body(request, arguments)
            if problem is not None:
                return problem
        try:
            kwargs = self._validate(arguments).__dict__.copy()
        except ValidationError as exc:
            return JSONResponse({"detail": self._detail(exc)}, status_code=422)
        if self._injected:
            # the caller: verified by the edge, or None; an LLM agent (set at build for `@mesh_llm` routes)
            # whose provider has no agent is a missing dependency, as a tool's is
            named = dict.fromkeys(plan.request_params, request) if plan.request_params else None
            unfilled = fill_injected(
                self._injected, self.wrapper, kwargs, None, self.beans, named=named, llm_ready=True
            )
            if unfilled is not None:
                if unfilled.llm is not None:
                    return self._provider_unavailable(unfilled.llm or "llm")
                return self._unavailable(unfilled.slots[0])
        try:
            if self._streams:
                chunks = self.target(**kwargs)
                if inspect.isawaitable(chunks):  # a coroutine that returns the generator
                    chunks = await chunks
                from .event_stream import EventStreamResponse  # loaded with the first streamed answer

                return EventStreamResponse(
                    chunks, route=plan.display, error_message=self._stream_error, drain=self.drain
                )
            if self._is_async:
                value = await self.target(**kwargs)
            else:
                value = await asyncio.to_thread(functools.partial(self.target, **kwargs))
        except HTTPException as exc:
            return JSONResponse({"detail": exc.detail}, status_code=exc.status_code, headers=exc.headers)
        except CapabilityUnavailable as exc:  # an LLM route's provider left after the check above
            return self._provider_unavailable(exc.capability)
        except Exception as exc:
            log_failure(logger, f"route {plan.display}", exc)
            return JSONResponse({"error": "internal_error", "detail": self.wrapper.error_text(exc)}, 500)
        if isinstance(value, Response):
            return value
        try:
            content = self._adapter.dump_json(value) if self._adapter is not None else to_json(value)
        except Exception as exc:
            logger.exception("route %s returned a value that cannot be sent as JSON", plan.display)
            return JSONResponse({"error": "internal_error", "detail": f"the answer is not JSON: {exc}"}, 500)
        return Response(content, media_type="application/json")

    async def _read_body(self, request: Request, arguments: dict[str, Any]) -> Response | None:
        body = self.plan.body
        try:
            raw = await self._bounded_body(request)
        except _BodyTooLarge:
            return JSONResponse(
                {"detail": f"request body over {self.max_body_bytes} bytes (server.max_body_bytes)"}, 413
            )
        except ClientDisconnect:
            return Response(status_code=400)
        if not raw.strip():
            return None  # every body parameter missing: validation names them
        try:
            data = json.loads(raw)
        except ValueError as exc:  # FastAPI's answer to a body that is not JSON
            where = ["body", getattr(exc, "pos", 0)]
            return _unprocessable("json_invalid", where, "JSON decode error", {}, ctx={"error": str(exc)})
        if len(body) == 1:
            arguments[body[0]] = data
        elif isinstance(data, dict):
            arguments.update({name: data[name] for name in body if name in data})
        else:
            return _unprocessable(
                "dict_type", ["body"], f"Input should be an object with {', '.join(body)}", data
            )
        return None

    async def _bounded_body(self, request: Request) -> bytes:
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_body_bytes:
            raise _BodyTooLarge
        parts = bytearray()
        async for part in request.stream():
            parts += part
            if len(parts) > self.max_body_bytes:
                raise _BodyTooLarge
        return bytes(parts)

    def _detail(self, exc: ValidationError) -> list[dict[str, Any]]:
        """FastAPI's 422 shape: every problem with its place (`["body", "name"]`, `["query", "n"]`)."""
        plan = self.plan
        problems = []
        for error in exc.errors(include_url=False, include_context=False):
            loc = list(error["loc"])
            name = loc[0] if loc else ""
            if name in plan.body:
                loc = ["body", *loc[1:]] if len(plan.body) == 1 else ["body", *loc]
            else:
                loc = ["path" if name in plan.path_params else "query", *loc]
            problem = {"type": error["type"], "loc": loc, "msg": error["msg"]}
            if error["type"] != "missing":
                problem["input"] = error.get("input")
            problems.append(problem)
        jsonable: list[dict[str, Any]] = json.loads(to_json(problems, fallback=str))  # inputs of any type
        return jsonable

    def _refused(self, request: Request) -> Response | None:
        """401 or 403 with a Bearer challenge when the caller (verified by the edge) lacks the route's
        scopes, as the MCP endpoint answers for a tool; None when it has them."""
        from ..security.challenge import WELL_KNOWN, scope_refusal  # with the first route of scopes asked

        presented = request.headers.get("authorization", "")[:7].lower() == "bearer "
        metadata = str(request.base_url).rstrip("/") + WELL_KNOWN
        refusal = scope_refusal(current_access_token(), presented, self.plan.spec.scopes, metadata)
        if refusal is None:
            return None
        status, body, challenge = refusal
        logger.debug("route %s refused: %s", self.plan.display, body["error_description"])
        return JSONResponse(body, status_code=status, headers={"www-authenticate": challenge})

    def _unavailable(self, slot: int) -> Response:
        dependency = self.wrapper.spec.dependencies[slot]  # the declared ones, then services' methods
        listener = self.wrapper.unresolved_listener
        if listener is not None:
            listener(self.wrapper, dependency)  # asks the registry again at once
        capability = dependency.selector.capability
        logger.warning("route %s: dependency '%s' has no provider (503)", self.plan.display, capability)
        return JSONResponse({"error": "dependency_unavailable", "capability": capability}, status_code=503)

    def _provider_unavailable(self, capability: str) -> Response:
        logger.warning("route %s: LLM provider '%s' has no agent (503)", self.plan.display, capability)
        return JSONResponse({"error": "dependency_unavailable", "capability": capability}, status_code=503)

    def _stream_error(self, exc: BaseException) -> str:
        return str(exc) if not self.wrapper.mask_errors else self.wrapper.error_text(exc)
